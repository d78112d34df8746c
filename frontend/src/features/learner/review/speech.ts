import { useEffect, useState } from "react";

/**
 * The browser's voice for a BCP 47 language tag (a deck's term language:
 * "en", "es", "fr-CA"), or undefined when it has none: a voice whose own
 * tag is the same (case-insensitively, "_" read as "-"), or else one of the
 * same primary language ("fr-FR" for "fr-CA", "en-GB" for "en"), the
 * browser's default voice first. The Web Speech API's voices are the
 * system's; a browser without speechSynthesis has none.
 */
export function voiceFor(voices: readonly SpeechSynthesisVoice[], language: string): SpeechSynthesisVoice | undefined {
  const tag = (s: string) => s.replaceAll("_", "-").toLowerCase();
  const want = tag(language);
  const primary = want.split("-")[0];
  const ordered = [...voices].sort((a, b) => Number(b.default) - Number(a.default));
  return ordered.find((v) => tag(v.lang) === want) ?? ordered.find((v) => tag(v.lang).split("-")[0] === primary);
}

function synthesis(): SpeechSynthesis | undefined {
  return typeof window !== "undefined" && "speechSynthesis" in window ? window.speechSynthesis : undefined;
}

/**
 * The voice the browser has for language (voiceFor), kept up to date: a
 * browser loads its voices after the page (Chromium's list is empty until
 * its voiceschanged event). Undefined while it has none.
 */
export function useVoice(language: string): SpeechSynthesisVoice | undefined {
  const [voices, setVoices] = useState<SpeechSynthesisVoice[]>(() => synthesis()?.getVoices() ?? []);
  useEffect(() => {
    const s = synthesis();
    if (!s) return;
    const read = () => setVoices(s.getVoices());
    read();
    s.addEventListener("voiceschanged", read);
    return () => s.removeEventListener("voiceschanged", read);
  }, []);
  return voiceFor(voices, language);
}

/** Speaks text with voice in language, cutting short whatever it was saying. */
export function speak(text: string, voice: SpeechSynthesisVoice, language: string) {
  const s = synthesis();
  if (!s) return;
  const u = new SpeechSynthesisUtterance(text);
  u.voice = voice;
  u.lang = language;
  s.cancel();
  s.speak(u);
}
