import { serverNow } from "../api/clock";

/**
 * How the client shows an instant a learner or a teacher acts by (a due
 * date): always with its time zone named, since the same instant is
 * another day and hour for a learner in Paris or Kolkata than for the
 * teacher in London who set it. timeZone is an IANA name (the teacher's
 * own, from Me); undefined, or a zone this browser does not know, is the
 * browser's. The locale is the browser's English one, or British English
 * (see locale). The zone is named as a place or a region (zoneLabel:
 * "France Time", "India Time", "Central European Time") rather than by its
 * offset ("GMT+1"), which a learner does not recognise as Paris.
 */

/**
 * The locale the client writes dates and times in: the browser's when it is
 * an English one, since every sentence around them is English; else
 * British English (day before month, a 24-hour clock), so that a French
 * browser reads "9 Dec, 16:53 France Time", not "9 déc., 16:53 heure :
 * France" inside an English sentence.
 */
export const locale: string | undefined =
  typeof navigator === "undefined" || /^en\b/i.test(navigator.language ?? "") ? undefined : "en-GB";

/** A formatter for options in timeZone, or in the browser's zone when it does not know timeZone. */
function formatter(options: Intl.DateTimeFormatOptions, timeZone?: string): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat(locale, { ...options, timeZone });
  } catch {
    return new Intl.DateTimeFormat(locale, options); // RangeError: an unknown zone
  }
}

/** The name of timeZone at the instant at, as formatter writes it with the timeZoneName option name. */
function zonePart(at: Date, name: Intl.DateTimeFormatOptions["timeZoneName"], timeZone?: string): string {
  return formatter({ timeZoneName: name }, timeZone).formatToParts(at).find((p) => p.type === "timeZoneName")?.value ?? "";
}

/**
 * How timeZone (the browser's when undefined or unknown) is named at the
 * instant at: by its short generic name ("France Time", "India Time",
 * "Japan Time"), or its long one where the short one is an abbreviation
 * ("CET" becomes "Central European Time", "ET" "Eastern Time"); "UTC" for
 * UTC and the Etc zones, whose generic names are offsets.
 */
function zoneOption(at: Date, timeZone?: string): Intl.DateTimeFormatOptions["timeZoneName"] {
  const zone = formatter({}, timeZone).resolvedOptions().timeZone;
  if (zone === "UTC" || zone.startsWith("Etc/")) return "short";
  return /^[A-Z]{1,5}$/.test(zonePart(at, "shortGeneric", timeZone)) ? "longGeneric" : "shortGeneric";
}

/** The name of timeZone at the instant at, as due and clock times write it (see zoneOption). */
export function zoneLabel(at: string | Date, timeZone?: string): string {
  const when = new Date(at);
  return zonePart(when, zoneOption(when, timeZone), timeZone);
}

/** The instant at formatted with options in timeZone, its zone named (see zoneOption). */
function withZone(options: Intl.DateTimeFormatOptions, at: Date, timeZone?: string): string {
  return formatter({ ...options, timeZoneName: zoneOption(at, timeZone) }, timeZone).format(at);
}

const dayMs = 86_400_000;

/**
 * The calendar day the instant at falls on in timeZone, as a day number
 * (days since 1 January 1970), so that two of them differ by the days
 * between them there.
 */
export function dayNumber(at: Date, timeZone?: string): number {
  const parts = formatter({ year: "numeric", month: "numeric", day: "numeric", calendar: "gregory", numberingSystem: "latn" }, timeZone).formatToParts(at);
  const get = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  return Math.round(Date.UTC(get("year"), get("month") - 1, get("day")) / dayMs);
}

/**
 * An instant (RFC 3339 or a Date) as a date and time with its zone named,
 * e.g. "Dec 17, 12:59 AM France Time"; with the year when it is not the year of
 * now (by default the server's time as this device estimates it, serverNow:
 * the due dates are the server's instants).
 */
export function dueTime(at: string | Date, timeZone?: string, now: Date = serverNow()): string {
  const when = new Date(at);
  const year = formatter({ year: "numeric" }, timeZone);
  return withZone(
    {
      month: "short",
      day: "numeric",
      ...(year.format(when) !== year.format(now) && { year: "numeric" }),
      hour: "numeric",
      minute: "2-digit",
    },
    when,
    timeZone,
  );
}

/** The time of day of an instant with its zone named, e.g. "5:29 AM India Time". */
export function clockTime(at: string | Date, timeZone?: string): string {
  return withZone({ hour: "numeric", minute: "2-digit" }, new Date(at), timeZone);
}

/**
 * The place an IANA zone is named after, as a teacher reads a learner's
 * zone: "Europe/Paris" is "Paris", "America/Argentina/Buenos_Aires" is
 * "Buenos Aires"; a zone without a place ("UTC", "Etc/GMT+12") is itself.
 */
export function zonePlace(timeZone: string): string {
  if (timeZone.startsWith("Etc/") || !timeZone.includes("/")) return timeZone;
  return timeZone.slice(timeZone.lastIndexOf("/") + 1).replaceAll("_", " ");
}
