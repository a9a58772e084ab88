#!/usr/bin/env python3
"""How far a one-sentence extractive summary can get above the lead cut on a
pairs file whose texts have one sentence per line (summaries-bbc100): the
ceiling the one-sentence target of `gleaner eval-summaries` is measured
against.

    pip install rouge-score
    gleaner eval-summaries ../shared/datasets/summaries-bbc100/pairs.jsonl --dump /tmp/dump.jsonl
    scripts/summaries-ceiling.py ../shared/datasets/summaries-bbc100/pairs.jsonl [/tmp/dump.jsonl]

For each pair it scores every sentence of the text, as ROUGE-1 / ROUGE-2 F1
against the reference minus the same for the text's first words cut to the
sentence's length (what `gleaner eval-summaries` prints as the gain), and
reports the mean gain of:
  - the best sentence of each text by ROUGE-1 gain (the oracle: knows the
    reference), with its ROUGE-2 gain beside;
  - the longest sentence the reference itself contains (knows it too);
  - the lead sentence (0 by construction);
  - with a dump, the engine's own one-sentence summaries, scored here the
    same way (a check that this script agrees with the eval).
"""
import json, sys
from rouge_score import rouge_scorer

scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2"], use_stemmer=True)


def gain(text, reference, summary):
    lead = " ".join(text.split()[: len(summary.split())])
    a, b = scorer.score(reference, summary), scorer.score(reference, lead)
    return tuple(a[k].fmeasure - b[k].fmeasure for k in ("rouge1", "rouge2"))


def mean(rows):
    return tuple(100 * sum(r[k] for r in rows) / len(rows) for k in (0, 1))


def main():
    pairs = [json.loads(line) for line in open(sys.argv[1])]
    engine = {}
    if len(sys.argv) > 2:
        for line in open(sys.argv[2]):
            r = json.loads(line)
            if r["length"] == "one_sentence":
                engine[r["id"]] = r["summary"]
    oracle, longest, ours = [], [], []
    for p in pairs:
        sents = [s.strip() for s in p["text"].split("\n") if s.strip()]
        in_reference = {s.strip() for s in p["summary"].split("\n")}
        gains = [gain(p["text"], p["summary"], s) for s in sents]
        oracle.append(max(gains))
        from_reference = [i for i, s in enumerate(sents) if s in in_reference]
        if from_reference:
            longest.append(gains[max(from_reference, key=lambda i: len(sents[i].split()))])
        if p["id"] in engine:
            ours.append(gain(p["text"], p["summary"], engine[p["id"]]))
    print(f"{len(pairs)} pairs; gain in ROUGE-1 / ROUGE-2 F1 x100 over the lead cut to as many words")
    print("oracle sentence                     %+.1f / %+.1f" % mean(oracle))
    print("longest sentence of the reference %+.1f / %+.1f (%d pairs)" % (*mean(longest), len(longest)))
    if ours:
        print("the engine's one sentence             %+.1f / %+.1f (%d pairs)" % (*mean(ours), len(ours)))


if __name__ == "__main__":
    main()
