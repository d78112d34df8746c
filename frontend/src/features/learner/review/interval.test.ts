// @vitest-environment node
import { describe, expect, it } from "vitest";
import { formatInterval } from "./interval";

const min = 60_000;
const day = 24 * 60 * min;

describe("formatInterval", () => {
  it("reads as Anki's rating buttons do", () => {
    expect(formatInterval(20_000)).toBe("<1 min");
    expect(formatInterval(10 * min)).toBe("10 min");
    expect(formatInterval(59.4 * min)).toBe("59 min");
    expect(formatInterval(3 * 60 * min)).toBe("3 h");
    expect(formatInterval(day)).toBe("1 d");
    expect(formatInterval(4.4 * day)).toBe("4 d");
    expect(formatInterval(75 * day)).toBe("2.5 mo");
    expect(formatInterval(438 * day)).toBe("1.2 y");
  });
});
