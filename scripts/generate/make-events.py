#!/usr/bin/env python3
"""Writes seeded, realistic FirePack test and benchmark inputs as reversible JSON lines (Firestore types as
`{"__timestamp__": …}` markers), for `firepack convert` to turn into .fpks:

    python3 scripts/generate/make-events.py events /tmp/events.jsonl 200000     # GitHub-event-like documents
    python3 scripts/generate/make-events.py orders /tmp/orders.jsonl 200000     # order-book-like documents
    python3 scripts/generate/make-events.py events-uniform /tmp/e.jsonl 200000  # events without the field of varying type
    firepack convert /tmp/events.jsonl /tmp/events.fpks

Every document carries a `__name__` path; between them they hold every Firestore type: timestamps with nanoseconds,
geopoints, references, bytes, vectors, nested maps, arrays of maps, nulls and absent fields, and (in `events`) one
field whose type varies, as real exports have."""
import base64
import json
import random
import sys

WORDS = ["push", "fork", "watch", "issue", "release", "galaxy", "harbor", "signal", "engine", "orbit", "mirror", "river"]
TYPES = ["PushEvent", "ForkEvent", "WatchEvent", "IssuesEvent", "PullRequestEvent", "CreateEvent", "ReleaseEvent"]


def timestamp(rng, year_from=2015, year_to=2026):
    return {"__timestamp__": f"{rng.randint(year_from, year_to)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T"
                             f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}."
                             f"{rng.randint(0, 999_999_999):09d}Z"}


def event(rng, index, mixed=True):
    actor = rng.randint(1, 50_000)
    repo = rng.randint(1, 20_000)
    document = {
        "__name__": f"events/e{index:09d}",
        "type": rng.choice(TYPES),
        "public": rng.random() < 0.95,
        "createdAt": timestamp(rng),
        "actor": {"id": actor, "login": f"user{actor}", "avatar": f"https://avatars.example/u/{actor}?v=4",
                  "profile": {"__reference__": f"users/u{actor}"}},
        "repo": {"id": repo, "name": f"org{repo % 700}/{rng.choice(WORDS)}-{repo}",
                 "stars": rng.randint(0, 90_000), "score": round(rng.uniform(0, 100), 3)},
        "payload": {"size": rng.randint(1, 20), "ref": f"refs/heads/{rng.choice(WORDS)}",
                    "commits": [{"sha": "%040x" % rng.getrandbits(160), "message": " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 9))),
                                 "distinct": rng.random() < 0.9} for _ in range(rng.randint(0, 4))]},
        "labels": [rng.choice(WORDS) for _ in range(rng.randint(0, 3))],
        "location": {"__geopoint__": [round(rng.uniform(-90, 90), 6), round(rng.uniform(-180, 180), 6)]},
        "signature": {"__bytes__": base64.b64encode(rng.randbytes(16)).decode()},
        "embedding": {"__vector__": [round(rng.uniform(-1, 1), 6) for _ in range(8)]},
        # Present with a value, present with null, or absent: what exported data looks like.
        "org": rng.choice([{"id": rng.randint(1, 700), "login": f"org{rng.randint(1, 700)}"}, None]),
        # One field whose type varies between documents (kept exactly as REST JSON text in Arrow).
        "weight": rng.choice([rng.randint(0, 100), round(rng.uniform(0, 1), 4), "n/a"]),
    }
    if not mixed:
        del document["weight"]
    if rng.random() < 0.3:
        document["closedAt"] = timestamp(rng)
    return document


def order(rng, index):
    price = round(rng.uniform(10, 5000), 2)
    return {
        "__name__": f"books/BTC-USD/orders/o{index:010d}",
        "side": rng.choice(["bid", "ask"]),
        "price": price,
        "quantity": round(rng.uniform(0.0001, 25), 8),
        "placedAt": timestamp(rng, 2024, 2026),
        "trader": {"__reference__": f"traders/t{rng.randint(1, 5000)}"},
        "venue": {"name": rng.choice(["north", "south", "east"]), "where": {"__geopoint__": [round(rng.uniform(-60, 60), 4), round(rng.uniform(-170, 170), 4)]}},
        "levels": [[round(price + rng.uniform(-5, 5), 2), round(rng.uniform(0, 10), 4)] for _ in range(rng.randint(1, 5))],
        "fills": [{"quantity": round(rng.uniform(0, 1), 6), "at": timestamp(rng, 2024, 2026)} for _ in range(rng.randint(0, 3))],
        "tag": {"__bytes__": base64.b64encode(rng.randbytes(6)).decode()},
    }


def main():
    kind, path, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 7
    make = {"events": event, "events-uniform": lambda rng, index: event(rng, index, mixed=False), "orders": order}[kind]
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as out:
        for index in range(count):
            out.write(json.dumps(make(rng, index), separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
