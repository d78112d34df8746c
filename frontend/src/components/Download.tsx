import { useState } from "react";
import { unwrap } from "../api/client";
import { ProblemAlert } from "./ProblemAlert";

/** Offers blob as a file the browser saves, named name (characters a file system refuses become "_"). */
export function saveFile(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name.replace(/[\\/:*?"<>|]+/g, "_");
  document.body.append(a);
  a.click();
  a.remove();
  URL.revokeObjectURL(url);
}

/**
 * A button that reads a file from a function (read: an openapi-fetch GET
 * with `parseAs: "blob"`, sent with the caller's token, which a plain link
 * could not carry) and saves it as name; a refusal is shown beside it.
 */
export function DownloadButton({
  label,
  name,
  read,
}: {
  label: string;
  name: string;
  read: () => Promise<{ data?: Blob; error?: unknown; response: Response }>;
}) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = () => {
    setBusy(true);
    setError(null);
    read()
      .then((r) => saveFile(unwrap(r), name))
      .catch(setError)
      .finally(() => setBusy(false));
  };
  return (
    <>
      <button type="button" onClick={run} disabled={busy}>
        {busy ? "Downloading…" : label}
      </button>
      {error !== null && <ProblemAlert error={error} context={`${label}: not downloaded`} />}
    </>
  );
}
