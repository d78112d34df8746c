import "@testing-library/jest-dom/vitest";
import "fake-indexeddb/auto";
import { cleanup, configure } from "@testing-library/react";
import { afterEach } from "vitest";

// jsdom has no layout and no ResizeObserver: recharts' ResponsiveContainer
// then draws at its initialDimension, which the charts set.

// findBy*/waitFor poll until the element appears; on a loaded 2-core machine
// the first render of a file (module loading, jsdom) can take seconds.
configure({ asyncUtilTimeout: 10_000 });

afterEach(() => {
  cleanup();
  globalThis.localStorage?.clear();
});
