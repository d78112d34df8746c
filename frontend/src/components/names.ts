/**
 * Compares two names of people as a reader would, in the browser's
 * locale: case and accents do not count ("ada" sorts beside "Ada", before
 * "Bea", not after every capital), so a list sorted with it is in the
 * order a teacher looks names up.
 */
export function byName(a: string, b: string): number {
  return a.localeCompare(b, undefined, { sensitivity: "base" });
}
