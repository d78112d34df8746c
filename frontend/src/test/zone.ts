import { locale } from "../components/when";

/**
 * The browser's name for its own zone at the instant at, as a due time names
 * it (components/when.ts): the generic name ("France Time"), or "UTC".
 */
export function zoneName(at: string): string {
  const zone = new Intl.DateTimeFormat().resolvedOptions().timeZone;
  const timeZoneName = zone === "UTC" || zone.startsWith("Etc/") ? "short" : "shortGeneric";
  return new Intl.DateTimeFormat(locale, { timeZoneName }).formatToParts(new Date(at)).find((p) => p.type === "timeZoneName")!.value;
}
