#!/usr/bin/env python3
"""Writes a large JSON-lines file of book documents (default 1 GB) for measuring streaming conversion:
    python3 scripts/generate/make-large-stream.py /tmp/books.jsonl 1000
then e.g. /usr/bin/time -v .build/release/firepack convert /tmp/books.jsonl /tmp/books.fpks --collection books --id-field id"""
import json
import random
import sys

path = sys.argv[1]
megabytes = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
rng = random.Random(7)
words = ["galaxy", "towel", "desert", "spice", "river", "garden", "mirror", "signal", "harbor", "engine", "letter", "orbit"]
target = megabytes * 1_000_000
written = 0
index = 0
with open(path, "w", encoding="utf-8") as out:
    while written < target:
        document = {"id": f"book-{index:09d}", "title": " ".join(rng.choice(words).capitalize() for _ in range(3)),
                    "numberOfPages": rng.randint(40, 1400), "author": "Author " + str(rng.randint(1, 5000)),
                    "rating": round(rng.uniform(1, 5), 2), "inPrint": rng.random() < 0.7,
                    "tags": [{"title": rng.choice(words), "color": "#%08X" % rng.getrandbits(32)} for _ in range(rng.randint(0, 3))],
                    "published": {"__timestamp__": f"{rng.randint(1900, 2025)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T00:00:00Z"}}
        line = json.dumps(document, separators=(",", ":")) + "\n"
        out.write(line)
        written += len(line)
        index += 1
print(f"{path}: {written} bytes, {index} documents")
