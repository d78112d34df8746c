import "@testing-library/jest-dom/vitest";
import "fake-indexeddb/auto";
import { cleanup } from "@testing-library/react";
import { afterEach } from "vitest";

// jsdom has no layout and no ResizeObserver: recharts' ResponsiveContainer
// then draws at its initialDimension, which the charts set.

afterEach(() => {
  cleanup();
  localStorage.clear();
});
