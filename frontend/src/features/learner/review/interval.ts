/**
 * An interval as Anki shows it on a rating button: "<1 min", "10 min",
 * "3 h", "4 d", "2.5 mo", "1.2 y" (minutes below an hour, hours below a
 * day, days below a month of 30 days, months below a year of 365 days).
 */
export function formatInterval(ms: number): string {
  const minutes = ms / 60_000;
  if (minutes < 1) return "<1 min";
  if (minutes < 60) return `${Math.round(minutes)} min`;
  const hours = minutes / 60;
  if (hours < 24) return `${Math.round(hours)} h`;
  const days = hours / 24;
  if (days < 30) return `${Math.round(days)} d`;
  if (days < 365) return `${oneDecimal(days / 30)} mo`;
  return `${oneDecimal(days / 365)} y`;
}

function oneDecimal(n: number): string {
  return String(Math.round(n * 10) / 10);
}
