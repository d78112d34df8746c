package deckimport_test

import (
	"fmt"
	"strings"

	"github.com/lexora-app/lexora/pkg/deckimport"
)

// A teacher pastes a list from a spreadsheet; the deck already has "ser".
// The preview shows each row as it will be saved, the refused lines and the
// duplicates; the teacher leaves the refused line out and updates the
// deck's entry.
func Example() {
	paste := "\ufeffWord,Translation,Example\r\n" +
		"hablar,to speak,\"Hablo español, un poco.\"\r\n" +
		"Ser,\"to be (permanent)\",\r\n" +
		"comer,,\r\n" +
		"HABLAR,to talk,\r\n"
	preview, err := deckimport.Parse([]byte(paste), deckimport.Options{Existing: []string{"ser"}})
	if err != nil {
		fmt.Println(err) // an *InputError: answer 400, 413 or 415
		return
	}
	fmt.Println(preview.Format, preview.Columns)
	for _, r := range preview.Rows {
		fmt.Printf("line %d: %s = %s (same as line %d, in deck %t)\n", r.Line, r.Term, r.Meaning, r.SameAs, r.InDeck)
	}
	for _, f := range preview.Refused {
		fmt.Printf("line %d refused: %s: %s\n", f.Line, f.Field, f.Reason)
	}
	plan, err := preview.Plan(deckimport.Update, true)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range plan.Add {
		fmt.Printf("add %q: %q\n", e.Term, e.Meaning)
	}
	for _, e := range plan.Update {
		fmt.Printf("update %q: %q\n", e.Term, e.Meaning)
	}
	fmt.Println("left out:", plan.Left)
	// Output:
	// table [{Word term} {Translation meaning} {Example example}]
	// line 2: hablar = to speak (same as line 0, in deck false)
	// line 3: Ser = to be (permanent) (same as line 0, in deck true)
	// line 5: HABLAR = to talk (same as line 2, in deck false)
	// line 4 refused: meaning: the meaning is empty
	// add "HABLAR": "to talk"
	// update "Ser": "to be (permanent)"
	// left out: [2 4]
}

// Export writes a deck as CSV that spreadsheets open and Parse reads back:
// a UTF-8 byte-order mark (left out below), a header, CRLF line ends; a
// cell that a spreadsheet would run as a formula gets an apostrophe.
func ExampleExport() {
	var b strings.Builder
	err := deckimport.Export(&b, []deckimport.Entry{
		{Term: "chat", Meaning: "cat", Example: "Le chat dort.", PartOfSpeech: deckimport.Noun},
		{Term: "-ing", Meaning: "=a suffix"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(strings.ReplaceAll(strings.TrimPrefix(b.String(), "\ufeff"), "\r\n", "\n"))
	// Output:
	// term,meaning,example,part_of_speech
	// chat,cat,Le chat dort.,noun
	// '-ing,'=a suffix,,
}
