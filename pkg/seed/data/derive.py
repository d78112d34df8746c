#!/usr/bin/env python3
"""Derive pkg/seed/data/words.tsv from the Princeton WordNet 3.0 database.

Usage:
    python3 pkg/seed/data/derive.py /usr/share/wordnet > pkg/seed/data/words.tsv

Source
    WordNet 3.0, Princeton University (https://wordnet.princeton.edu/),
    as shipped by Debian's `wordnet-base` package (version 1:3.0-37), which
    installs the database under /usr/share/wordnet. Files read:
      data.noun data.verb data.adj data.adv   synsets, lemmas and glosses
      cntlist.rev                             sense_key -> tag_cnt
    (Debian's package has no index.sense; cntlist.rev carries the same
    sense_key -> tag_cnt data. About 2,000 of its 37,387 entries name sense
    keys that do not exist in the WordNet 3.0 data files (left over from
    earlier releases); like index.sense, they are ignored.)
      noun.exc verb.exc adj.exc adv.exc       irregular inflections
    Licence: WordNet 3.0 licence, see LICENSE-WordNet.txt next to this file.

What it does
    1. Reads every synset from the four data.* files. For every word in a
       synset it rebuilds the WordNet sense key
       (lemma%ss_type:lex_filenum:lex_id:head_word:head_id) and looks up its
       frequency = tag_cnt in cntlist.rev (0 if the sense is not listed).
    2. Splits each gloss into a definition and an example. WordNet glosses
       look like `definition; "example one"; "example two"`. The example is
       the first double-quoted segment that follows a `;` (the first quoted
       example); the definition is the text before it. Trailing `;:,` and
       surrounding whitespace are stripped; runs of whitespace (including any
       tab/newline) collapse to a single space.
    3. Candidate senses for a lemma must have BOTH a non-empty definition and
       an example.
    4. Lemma filter (the lemma as a learner sees it, underscores -> spaces):
         - single words only, letters a-z only (this drops multi-word
           expressions, hyphenated compounds, and anything with digits or
           punctuation);
         - at least 3 letters;
         - not a proper noun: senses whose word form in the synset contains
           an upper-case letter are ignored (so "march" the walk is kept,
           "March" the month is not);
         - not a pure function word / auxiliary (FUNCTION_WORDS below).
    5. One row per lemma. Among the lemma's candidate senses (all parts of
       speech), senses whose example contains the lemma or an inflection of
       it are preferred; if none does, all candidates are considered. Within
       that set the sense with the highest frequency wins; ties are broken by
       part of speech (noun, verb, adjective, adverb), then by WordNet sense
       number, then by synset offset.
    6. Rows are sorted by frequency descending, ties by lemma ascending, and
       the first LIMIT (1000) rows are written with the header
       `lemma<TAB>part_of_speech<TAB>definition<TAB>example<TAB>frequency`.
       part_of_speech is noun, verb, adjective (incl. satellites) or adverb.

The output is deterministic: the same WordNet files always produce the same
bytes (UTF-8, LF line endings). Standard library only.
"""

import os
import re
import sys

LIMIT = 1000

POS_FILES = [("noun", "n"), ("verb", "v"), ("adj", "a"), ("adv", "r")]
POS_NAME = {"n": "noun", "v": "verb", "a": "adjective", "s": "adjective", "r": "adverb"}
POS_ORDER = {"noun": 0, "verb": 1, "adjective": 2, "adverb": 3}
SS_TYPE_NUM = {"n": 1, "v": 2, "a": 3, "r": 4, "s": 5}

# Pure function words: determiners and quantifiers, pronouns, conjunctions,
# prepositions/particles, auxiliaries and modals, negation, degree/focus
# particles and deictic/connective adverbs. WordNet files some of them under
# a content part of speech (e.g. "not" and "very" as adverbs, "many" as an
# adjective, "have"/"be"/"do" as verbs), so they are listed explicitly.
# Words that also have a genuine content sense learners need (own, past,
# near, will, must, can, while, never, ever, again, almost, still) are kept.
FUNCTION_WORDS = frozenset("""
a an the this that these those some any all each every both either neither
few many much more most less least other another such same one none
i me my mine you your yours he him his she her hers it its we us our ours
they them their theirs who whom whose which what whatever whichever whoever
and but nor for yet because although though whether unless since
about above across after against along among around before behind below
beneath beside between beyond but by down during except from inside into
off onto out outside over through throughout toward towards under until
upon with within without
be have has had do does did shall should would could may might
not also very too just only even quite rather here there then thus
therefore hence however
""".split())

LEMMA_RE = re.compile(r"^[a-z]+$")
EXAMPLE_RE = re.compile(r';\s*"([^"]*)"')
WORD_RE = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
WS_RE = re.compile(r"\s+")
ADJ_MARKER_RE = re.compile(r"\((?:a|p|ip)\)$")
HEAD_MARKER_RE = re.compile(r"\((?:a|p|ip)\):")

# Morphological detachment rules (as in WordNet's morphy), per part of speech.
SUFFIX_RULES = {
    "noun": [("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"),
             ("shes", "sh"), ("men", "man"), ("ies", "y")],
    "verb": [("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"),
             ("ed", ""), ("ing", "e"), ("ing", "")],
    "adjective": [("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
    "adverb": [],
}


def clean(text):
    return WS_RE.sub(" ", text).strip()


def split_gloss(gloss):
    """Return (definition, example) or (definition, None)."""
    m = EXAMPLE_RE.search(gloss)
    if not m:
        return clean(gloss).rstrip(";:, "), None
    definition = clean(gloss[: m.start()]).rstrip(";:, ").strip()
    example = clean(m.group(1))
    return definition, example


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("  "):  # licence header
                continue
            yield line.rstrip("\n")


def load_exceptions(wndir):
    """Map (pos, inflected form) -> set of base forms."""
    exc = {}
    for fname, pos in (("noun.exc", "noun"), ("verb.exc", "verb"),
                       ("adj.exc", "adjective"), ("adv.exc", "adverb")):
        for line in read_lines(os.path.join(wndir, fname)):
            parts = line.split()
            if len(parts) >= 2:
                exc.setdefault((pos, parts[0]), set()).update(parts[1:])
    return exc


def base_forms(token, pos, exc):
    """Possible base forms of a lower-case token for the given part of speech."""
    forms = {token}
    forms.update(exc.get((pos, token), ()))
    for suffix, ending in SUFFIX_RULES[pos]:
        if token.endswith(suffix) and len(token) > len(suffix):
            stem = token[: len(token) - len(suffix)] + ending
            forms.add(stem)
            # doubled final consonant: running -> run, bigger -> big
            if (ending == "" and len(stem) >= 3 and stem[-1] == stem[-2]
                    and stem[-1] not in "aeiou"):
                forms.add(stem[:-1])
    return forms


def example_has_lemma(lemma, pos, example, exc):
    for tok in WORD_RE.findall(example):
        tok = tok.lower()
        if tok.endswith("'s"):
            tok = tok[:-2]
        if tok == lemma:
            return True
        # try every part of speech: e.g. a noun sense illustrated with a plural
        for p in (pos, "noun", "verb", "adjective"):
            if lemma in base_forms(tok, p, exc):
                return True
    return False


def load_counts(wndir):
    counts = {}
    for line in read_lines(os.path.join(wndir, "cntlist.rev")):
        parts = line.split()
        if len(parts) == 3:
            # Some satellite keys in cntlist.rev keep the syntactic marker on
            # the head word ("little(a)"); sense keys proper do not.
            key = HEAD_MARKER_RE.sub(":", parts[0])
            value = (int(parts[1]), int(parts[2]))
            if key not in counts or value[1] > counts[key][1]:
                counts[key] = value
    return counts


def parse_synset(line):
    fields = line.split(" ")
    offset, lex_filenum, ss_type = fields[0], fields[1], fields[2]
    w_cnt = int(fields[3], 16)
    words = []
    i = 4
    for _ in range(w_cnt):
        words.append((fields[i], int(fields[i + 1], 16)))
        i += 2
    p_cnt = int(fields[i])
    i += 1
    pointers = []
    for _ in range(p_cnt):
        pointers.append((fields[i], fields[i + 1], fields[i + 2]))
        i += 4
    gloss = line.split(" | ", 1)[1] if " | " in line else ""
    return {
        "offset": offset,
        "lex_filenum": int(lex_filenum),
        "ss_type": ss_type,
        "words": words,
        "pointers": pointers,
        "gloss": gloss,
    }


def strip_marker(word):
    return ADJ_MARKER_RE.sub("", word)


def load_synsets(wndir):
    synsets = []
    adj_by_offset = {}
    for fname, _ in POS_FILES:
        for line in read_lines(os.path.join(wndir, "data." + fname)):
            if not line.strip():
                continue
            ss = parse_synset(line)
            synsets.append(ss)
            if fname == "adj":
                adj_by_offset[ss["offset"]] = ss
    return synsets, adj_by_offset


def sense_key(lemma, ss, lex_id, adj_by_offset):
    head = ""
    head_id = ""
    if ss["ss_type"] == "s":
        for sym, off, pos in ss["pointers"]:
            if sym == "&" and pos == "a":
                hs = adj_by_offset[off]
                hword, hlex = hs["words"][0]
                head = strip_marker(hword).lower()
                head_id = "%02d" % hlex
                break
    return "%s%%%d:%02d:%02d:%s:%s" % (
        lemma, SS_TYPE_NUM[ss["ss_type"]], ss["lex_filenum"], lex_id, head, head_id)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: derive.py WORDNET_DICT_DIR > words.tsv\n")
        return 2
    wndir = argv[1]
    counts = load_counts(wndir)
    exc = load_exceptions(wndir)
    synsets, adj_by_offset = load_synsets(wndir)

    candidates = {}  # lemma -> list of sense tuples
    matched_keys = 0
    for ss in synsets:
        definition, example = split_gloss(ss["gloss"])
        pos = POS_NAME[ss["ss_type"]]
        for word, lex_id in ss["words"]:
            form = strip_marker(word)
            lemma = form.lower()
            key = sense_key(lemma, ss, lex_id, adj_by_offset)
            sense_num, freq = counts.get(key, (10 ** 6, 0))
            if key in counts:
                matched_keys += 1
            if not LEMMA_RE.match(lemma) or len(lemma) < 3:
                continue
            if form != lemma:  # capitalised: proper noun / name
                continue
            if lemma in FUNCTION_WORDS:
                continue
            if not definition or not example:
                continue
            has_lemma = example_has_lemma(lemma, pos, example, exc)
            candidates.setdefault(lemma, []).append(
                (has_lemma, freq, pos, sense_num, ss["offset"], definition, example))
    sys.stderr.write("derive.py: %d of %d cntlist.rev sense keys matched\n"
                     % (matched_keys, len(counts)))

    rows = []
    for lemma, senses in candidates.items():
        preferred = [s for s in senses if s[0]] or senses
        best = min(preferred, key=lambda s: (-s[1], POS_ORDER[s[2]], s[3], s[4]))
        _, freq, pos, _, _, definition, example = best
        rows.append((lemma, pos, definition, example, freq))
    rows.sort(key=lambda r: (-r[4], r[0]))

    out = ["lemma\tpart_of_speech\tdefinition\texample\tfrequency"]
    for lemma, pos, definition, example, freq in rows[:LIMIT]:
        fields = [lemma, pos, definition, example, str(freq)]
        for f in fields:
            assert "\t" not in f and "\n" not in f
        out.append("\t".join(fields))
    data = ("\n".join(out) + "\n").encode("utf-8")
    sys.stdout.buffer.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
