import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { components } from "../../../api/schema";
import { fakeServer, json, renderApp } from "../../../test/render";
import { Review } from "./Review";
import { voiceFor } from "./speech";

/** A due card of a teacher's deck of Spanish words, with the meaning and example the teacher wrote. */
const card = {
  card_id: "00000000-0000-4000-8000-0000000000c1",
  lemma: "gato",
  part_of_speech: "noun",
  definition: "cat (the teacher's meaning)",
  example: "El gato duerme.",
  term_language: "es",
  deck_title: "Spanish 1",
  state: "new",
  due: "2026-03-02T09:00:00Z",
  stability: 0,
  difficulty: 0,
  preview: [60, 360, 600, 3 * 86_400].map((interval_seconds, i) => ({
    rating: i + 1,
    state: i === 3 ? "review" : "learning",
    due: new Date(Date.parse("2026-03-02T09:00:00Z") + interval_seconds * 1000).toISOString(),
    interval_seconds,
  })),
} satisfies components["schemas"]["DueCard"];

const schedule = {
  learner_id: "00000000-0000-4000-8000-000000000001",
  timezone: "Europe/Paris",
  now: "2026-03-02T09:00:00Z",
  due_count: 1,
  new_count: 1,
  new_cards_per_day: 20,
  new_cards_today: 0,
  new_cards_left: 20,
  due: [card],
  forecast: [{ date: "2026-03-02", due: 1 }],
} satisfies components["schemas"]["Schedule"];

const voice = (lang: string, name: string, isDefault = false) =>
  ({ lang, name, default: isDefault, localService: true, voiceURI: name }) as SpeechSynthesisVoice;

/** The Web Speech API of a browser with voices, recording what it is asked to say. */
function fakeSpeech(voices: SpeechSynthesisVoice[]) {
  const spoken: { text: string; lang: string; voice: SpeechSynthesisVoice | null }[] = [];
  vi.stubGlobal(
    "SpeechSynthesisUtterance",
    class {
      text: string;
      lang = "";
      voice: SpeechSynthesisVoice | null = null;
      constructor(text: string) {
        this.text = text;
      }
    },
  );
  Object.defineProperty(window, "speechSynthesis", {
    configurable: true,
    value: {
      getVoices: () => voices,
      addEventListener: () => {},
      removeEventListener: () => {},
      cancel: () => {},
      speak: (u: { text: string; lang: string; voice: SpeechSynthesisVoice | null }) => spoken.push({ text: u.text, lang: u.lang, voice: u.voice }),
    },
  });
  return spoken;
}

afterEach(() => {
  Reflect.deleteProperty(window, "speechSynthesis");
  vi.unstubAllGlobals();
});

async function review() {
  fakeServer(() => json(schedule));
  renderApp(<Review />, { sender: { pause: () => Promise.resolve(), online: () => true } });
  return screen.findByRole("heading", { name: "gato" });
}

describe("the review card of a teacher's deck", () => {
  it("shows the teacher's meaning and example, marked in the deck's language", async () => {
    fakeSpeech([]);
    const heading = await review();
    expect(heading).toHaveAttribute("lang", "es");
    await userEvent.click(screen.getByRole("button", { name: /Show answer/ }));
    expect(screen.getByText("cat (the teacher's meaning)")).toBeInTheDocument();
    expect(screen.getByText("El gato duerme.").closest("dd")).toHaveAttribute("lang", "es");
  });

  it("speaks the term in the deck's language with the browser's voice for it", async () => {
    const spanish = voice("es-ES", "Mónica");
    const spoken = fakeSpeech([voice("en-US", "Samantha", true), spanish]);
    await review();
    await userEvent.click(screen.getByRole("button", { name: "Listen to “gato”" }));
    expect(spoken).toEqual([{ text: "gato", lang: "es", voice: spanish }]);
  });

  it("shows no Listen button where the browser has no voice for the language", async () => {
    fakeSpeech([voice("en-US", "Samantha", true)]);
    await review();
    expect(screen.queryByRole("button", { name: /Listen/ })).not.toBeInTheDocument();
  });

  it("shows no Listen button in a browser without speech synthesis", async () => {
    expect("speechSynthesis" in window).toBe(false);
    await review();
    expect(screen.queryByRole("button", { name: /Listen/ })).not.toBeInTheDocument();
  });
});

describe("voiceFor", () => {
  it("takes the voice of the very tag, else one of the same language, the default first", () => {
    const ca = voice("fr-CA", "Amélie");
    const fr = voice("fr-FR", "Thomas");
    const frDefault = voice("fr_FR", "Audrey", true);
    expect(voiceFor([fr, ca], "fr-CA")).toBe(ca);
    expect(voiceFor([fr, frDefault], "fr-BE")).toBe(frDefault);
    expect(voiceFor([fr], "FR")).toBe(fr);
    expect(voiceFor([fr, ca], "es")).toBeUndefined();
  });
});
