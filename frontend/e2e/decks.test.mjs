// End-to-end: a teacher's own words (issue 26), in Debian's chromium against
// the real local stack. A teacher pastes a list of 30 words with two bad
// lines, fixes them, assigns the deck to the Demo class; a learner reviews a
// new word; the teacher fixes its meaning; the learner sees the fix on the
// same card; then imports a CSV whose header it maps in the preview. Every screen is screenshotted into e2e/artifacts/ (decks-*.png)
// and checked with axe-core.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { artifacts, check, checkScreen, desktop, section, signIn, startStackAndBrowser } from "./browser.mjs";
import { until } from "./stack.mjs";

const mia = "00000000-0000-4000-8000-000000000001";
const title = "Unit 3: animals and home";

/** The teacher's list: Spanish terms, English meanings. */
const words = [
  ["gato", "cat"], ["perro", "dog"], ["caballo", "horse"], ["pájaro", "bird"], ["pez", "fish"],
  ["vaca", "cow"], ["comer", "to eat"], ["beber", "to drink"], ["dormir", "to sleep"], ["casa", "house"],
  ["cocina", "kitchen"], ["ventana", "window"], ["puerta", "door"], ["mesa", "table"], ["silla", "chair"],
  ["cama", "bed"], ["jardín", "garden"], ["techo", "roof"], ["biblioteca", "library"], ["escalera", "stairs"],
  ["baño", "bathroom"], ["espejo", "mirror"], ["lámpara", "lamp"], ["alfombra", "rug"], ["llave", "key"],
  ["ratón", "mouse"], ["oveja", "sheep"], ["cerdo", "pig"], ["conejo", "rabbit"], ["tortuga", "turtle"],
];
const list = words.map(([term, meaning]) => `${term}\t${meaning}`);
// Line 7 lost its term; line 19 lost its tab.
const broken = list.map((line, i) => (i === 6 ? `\t${words[6][1]}` : i === 18 ? words[18].join(" ") : line));

let stack;
let browser;

describe("a teacher's own words, from a pasted list to a learner's card", { timeout: 600_000 }, () => {
  before(async () => {
    ({ stack, browser } = await startStackAndBrowser());
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it("a teacher pastes 30 words with two bad lines, fixes them, assigns the deck; a learner sees the fixed meaning on the same card", async () => {
    try {
      await ownWords();
    } catch (err) {
      // The server's log, the outbox, and what each page showed.
      stack.keep(artifacts, "decks-failed");
      const pages = browser.contexts().flatMap((c) => c.pages());
      await Promise.all(
        pages.map((p, i) => p.screenshot({ path: join(artifacts, `decks-failed-${i}.png`), fullPage: true }).catch(() => {})),
      );
      throw err;
    }
  });
});

/** The whole path, teacher and learner, each in a browser context of their own. */
async function ownWords() {
  const teacher = await desktop(browser);
  const page = await signIn(teacher, stack.baseURL, "Ada Okafor");
  await page.getByRole("heading", { name: "Classes", level: 1 }).waitFor();
  await section(page, "Decks").click();
  await page.getByRole("heading", { name: "Decks", level: 1 }).waitFor();
  await page.getByRole("link", { name: /Core English 01/ }).first().waitFor();
  await checkScreen(page, "decks-list");

  // A deck of Spanish words with English meanings.
  await page.getByLabel("Title").fill(title);
  await page.getByLabel("Language of the words").fill("es");
  await page.getByLabel("Language of the meanings").fill("en");
  await page.getByRole("button", { name: "Create and add words" }).click();
  await page.getByRole("heading", { name: title, level: 1 }).waitFor();
  const deckId = page.url().split("/").pop();
  const entries = () => Number(stack.sql(`SELECT count(*) FROM lexemes WHERE deck_id = '${deckId}' AND removed_at IS NULL`));

  // The paste with two bad lines: each refused line named, nothing saved.
  await page.getByRole("button", { name: "Paste or import a list" }).click();
  await page.getByLabel("Paste your list").fill(broken.join("\n"));
  await page.getByRole("button", { name: "Preview", exact: true }).click();
  await page.getByText(/separated by tab \(detected\)\. 28 entries, 2 refused lines/).waitFor();
  const refused = page.getByRole("region", { name: "Refused lines" });
  assert.deepEqual(await refused.locator("tbody th").allTextContents(), ["7", "19"], "the refused lines by number");
  assert.equal(await page.getByRole("button", { name: "Import 28 entries" }).isDisabled(), true, "nothing is imported while a line is refused");
  await checkScreen(page, "decks-import-refused");
  assert.equal(entries(), 0, "a preview saves nothing");

  // Fixed, previewed again, imported.
  await page.getByLabel("Paste your list").fill(list.join("\n"));
  await page.getByRole("button", { name: "Preview", exact: true }).click();
  await page.getByText(/30 entries, 0 refused lines/).waitFor();
  await page.getByRole("button", { name: "Import 30 entries" }).click();
  await page.getByText(/Imported: 30 added, 0 updated/).waitFor();
  assert.equal(entries(), 30);
  await page.getByRole("button", { name: "Close", exact: true }).click();
  await page.getByRole("textbox", { name: "Row 30, term" }).waitFor();
  await checkScreen(page, "decks-editor");

  // Assigned to the Demo class, from the form that lists the teacher's own decks beside the library's.
  await section(page, "Classes").click();
  const assign = page.getByRole("form", { name: "Assign a deck to Demo class" });
  await assign.getByLabel("Deck").selectOption({ label: `${title} (30 words)` });
  await assign.getByRole("link", { name: `See the words of ${title}` }).waitFor();
  await assign.getByRole("button", { name: /^Assign to \d+ learners?$/ }).click();
  await assign.getByText(new RegExp(`${title} assigned to`)).waitFor();
  const cardsOfDeck = `SELECT count(*) FROM cards c JOIN lexemes l ON l.id = c.lexeme_id WHERE c.learner_id = '${mia}' AND l.deck_id = '${deckId}'`;
  assert.equal(stack.sql(cardsOfDeck), "30", "Mia has a card for each word");
  // Mia's other cards (the seed's decks) are due tomorrow, so her session starts with the teacher's words.
  stack.sql(`UPDATE cards SET due = now() + interval '1 day' WHERE learner_id = '${mia}'
    AND lexeme_id NOT IN (SELECT id FROM lexemes WHERE deck_id = '${deckId}')`);

  // The learner reviews a new word of the deck.
  const learner = await desktop(browser);
  const review = await signIn(learner, stack.baseURL, "Mia Laurent");
  await review.getByRole("heading", { name: "Today", level: 1 }).waitFor();
  await review.goto(`${stack.baseURL}/review`);
  await review.getByRole("button", { name: /Show answer/ }).waitFor();
  const term = await review.locator("#card-lemma").textContent();
  const meaning = new Map(words).get(term);
  assert.ok(meaning, `the first card (${term}) is a word of the teacher's deck`);
  assert.equal(await review.locator("#card-lemma").getAttribute("lang"), "es", "the term is marked as Spanish");
  await review.getByRole("button", { name: /Show answer/ }).click();
  await review.getByText(meaning, { exact: true }).waitFor();
  await checkScreen(review, "decks-review");
  await review.getByRole("button", { name: /^Again/ }).click();
  await review.getByTestId("queue-status").getByText("All ratings saved.").waitFor();
  const cardSql = `SELECT c.id FROM cards c JOIN lexemes l ON l.id = c.lexeme_id
    WHERE c.learner_id = '${mia}' AND l.deck_id = '${deckId}' AND l.lemma = '${term}'`;
  const cardId = stack.sql(cardSql);
  await until(() => stack.sql(`SELECT count(*) FROM review_log WHERE card_id = '${cardId}'`) === "1");
  const stateAfterReview = stack.sql(`SELECT state, reps, stability FROM cards WHERE id = '${cardId}'`);

  // The teacher fixes the word's meaning in the editor.
  await page.goto(`${stack.baseURL}/teacher/decks/${deckId}`);
  await page.getByRole("textbox", { name: "Row 1, term" }).waitFor();
  const terms = await page.getByRole("textbox", { name: /^Row \d+, term$/ }).evaluateAll((inputs) => inputs.map((i) => i.value));
  const row = terms.indexOf(term) + 1;
  assert.ok(row > 0, `${term} is a row of the editor`);
  const fixed = `${meaning} (fixed by Ada)`;
  await page.getByRole("textbox", { name: `Row ${row}, meaning` }).fill(fixed);
  await page.getByRole("button", { name: "Save changes (1)" }).click();
  await page.getByText(/Saved: 0 added, 1 changed, 0 removed/).waitFor();

  // Its learning step over (a minute after Again), the card is due again: the same card, its history
  // kept, shows the teacher's new meaning.
  stack.sql(`UPDATE cards SET due = now() - interval '1 hour' WHERE id = '${cardId}'`);
  await review.goto(`${stack.baseURL}/review`);
  await review.getByRole("button", { name: /Show answer/ }).waitFor();
  assert.equal(await review.locator("#card-lemma").textContent(), term, "the same word comes back");
  await review.getByRole("button", { name: /Show answer/ }).click();
  await review.getByText(fixed, { exact: true }).waitFor();
  await check(review, "decks-review-fixed");
  assert.equal(stack.sql(cardSql), cardId, "the same card: a fixed meaning is not a new card");
  assert.equal(stack.sql(`SELECT state, reps, stability FROM cards WHERE id = '${cardId}'`), stateAfterReview, "its FSRS state is kept");
  assert.equal(stack.sql(`SELECT count(*) FROM review_log WHERE card_id = '${cardId}'`), "1", "its review history is kept");

  // A CSV whose header Lexora does not know, its columns the other way round: read as a table, mapped in the preview.
  await page.getByRole("button", { name: "Paste or import a list" }).click();
  await page.getByLabel("Paste your list").fill("Bedeutung;Wort\neagle;águila\nsnake;serpiente");
  await page.getByLabel("Format").selectOption({ label: "A table (CSV or TSV) with a header row" });
  await page.getByRole("button", { name: "Preview", exact: true }).click();
  const wort = page.getByRole("combobox", { name: "Column “Wort” is read as" });
  assert.equal(await wort.inputValue(), "meaning", "an unknown header's second column is read as the meaning");
  await wort.selectOption({ label: "term" });
  const mapped = page.getByRole("region", { name: "Entries as they will be saved" });
  await mapped.getByText("águila", { exact: true }).waitFor();
  assert.equal(await page.getByRole("combobox", { name: "Column “Bedeutung” is read as" }).inputValue(), "meaning", "the two columns swap");
  assert.deepEqual(await mapped.locator("tbody td:nth-of-type(1)").allTextContents(), ["águila", "serpiente"], "the terms come from Wort");
  await checkScreen(page, "decks-import-columns");
  await page.getByRole("button", { name: "Import 2 entries" }).click();
  await page.getByText(/Imported: 2 added, 0 updated/).waitFor();
  assert.equal(stack.sql(`SELECT definition FROM lexemes WHERE deck_id = '${deckId}' AND lemma = 'águila'`), "eagle");
  assert.equal(entries(), 32);
  await teacher.close();
  await learner.close();
}
