#!/usr/bin/env python3
"""Writes Fixtures/*.json: the guide's collections ("Map Cloud Firestore data with Swift Codable") and a larger
generated collection, as JSON arrays of documents with an "id" field. Firestore types use FirePack's reversible JSON
markers (Docs/FORMAT.md and Sources/FirePackInterop/JSON): {"__timestamp__": RFC 3339}, {"__geopoint__": [lat, lng]},
{"__reference__": path}, {"__serverTimestamp__": true}.

Deterministic: the same script always writes the same bytes. After running it, run scripts/generate/generate-fixtures.sh's
second step (firepack convert) to refresh the .fpk files; a test fails when they drift apart."""
import json
import random
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent.parent / "Fixtures"
rng = random.Random(20261122)


def ts(text):
    return {"__timestamp__": text}


def ref(path):
    return {"__reference__": path}


def geo(lat, lng):
    return {"__geopoint__": [lat, lng]}


COLORS = {"red": "#FF0000FF", "green": "#00FF00FF", "blue": "#0000FFFF", "amber": "#FFBF00FF", "teal": "#008080FF",
          "violet": "#8F00FFFF", "slate": "#708090CC", "coral": "#FF7F50FF"}

books = [
    {"id": "hitchhiker", "title": "The Hitchhiker's Guide to the Galaxy", "numberOfPages": 216, "author": "Douglas Adams",
     "cover": {"small": "https://covers.example/hitchhiker-s.jpg", "medium": "https://covers.example/hitchhiker-m.jpg",
               "large": "https://covers.example/hitchhiker-l.jpg"},
     "genres": ["science fiction", "comedy"],
     "tags": [{"title": "towel", "color": COLORS["amber"]}, {"title": "classic", "color": COLORS["blue"]}]},
    {"id": "dune", "title": "Dune", "numberOfPages": 412, "author": "Frank Herbert",
     "cover": {"small": "https://covers.example/dune-s.jpg", "medium": "https://covers.example/dune-m.jpg",
               "large": "https://covers.example/dune-l.jpg"},
     "genres": ["science fiction"], "tags": [{"title": "desert", "color": COLORS["coral"]}]},
    {"id": "emma", "title": "Emma", "numberOfPages": 474, "author": "Jane Austen",
     "cover": {"small": "https://covers.example/emma-s.jpg", "medium": None, "large": "https://covers.example/emma-l.jpg"},
     "genres": ["romance", "satire"], "tags": []},
    {"id": "ulysses", "title": "Ulysses", "numberOfPages": 730, "author": "James Joyce",
     "cover": {"small": "https://covers.example/ulysses-s.jpg", "medium": "https://covers.example/ulysses-m.jpg",
               "large": "https://covers.example/ulysses-l.jpg"},
     "genres": ["modernist"], "tags": [{"title": "dublin", "color": COLORS["green"]}, {"title": "long", "color": COLORS["slate"]}]},
    {"id": "kokoro", "title": "こころ", "numberOfPages": 248, "author": "夏目漱石",
     "cover": {"small": "https://covers.example/kokoro-s.jpg", "medium": "https://covers.example/kokoro-m.jpg",
               "large": "https://covers.example/kokoro-l.jpg"},
     "genres": ["literary fiction"], "tags": [{"title": "meiji", "color": COLORS["violet"]}]},
]

languages = [
    {"id": "swift", "language_name": "Swift", "creationDate": ts("2014-06-02T00:00:00Z"), "designer": "Chris Lattner",
     "typing": "static", "paradigms": ["protocol-oriented", "functional", "object-oriented"]},
    {"id": "kotlin", "language_name": "Kotlin", "creationDate": ts("2011-07-22T00:00:00Z"), "designer": "JetBrains",
     "typing": "static", "paradigms": ["object-oriented", "functional"]},
    {"id": "python", "language_name": "Python", "creationDate": ts("1991-02-20T00:00:00Z"), "designer": "Guido van Rossum",
     "typing": "dynamic", "paradigms": ["object-oriented", "imperative", "functional"]},
    {"id": "go", "language_name": "Go", "creationDate": ts("2009-11-10T23:00:00Z"), "designer": "Robert Griesemer, Rob Pike, Ken Thompson",
     "typing": "static", "paradigms": ["concurrent", "imperative"]},
    {"id": "rust", "language_name": "Rust", "creationDate": ts("2015-05-15T00:00:00.123456789Z"), "designer": "Graydon Hoare",
     "typing": "static", "paradigms": ["functional", "concurrent", "imperative"]},
]

offices = [
    {"id": "mountain-view", "name": "Mountain View", "location": geo(37.422, -122.084), "headcount": 24000},
    {"id": "london", "name": "London King's Cross", "location": geo(51.5332, -0.1260), "headcount": 7000},
    {"id": "tokyo", "name": "Tokyo Shibuya", "location": geo(35.6580, 139.7016), "headcount": 1300},
    {"id": "sydney", "name": "Sydney Pyrmont", "location": geo(-33.8668, 151.1955), "headcount": 1800},
    {"id": "sao-paulo", "name": "São Paulo", "location": geo(-23.5868, -46.6821), "headcount": 700},
]

colors = [{"id": name, "name": name, "color": hexcode} for name, hexcode in COLORS.items()]

articles = [
    {"id": "a1", "title": "Mapping Firestore data with Codable", "status": "published", "author": ref("users/peter"),
     "createdAt": ts("2021-05-04T09:30:00Z"), "updatedAt": ts("2021-05-06T16:02:11.5Z"), "deletedAt": None,
     "readingTimeMinutes": 12},
    {"id": "a2", "title": "Server timestamps explained", "status": "in review", "author": ref("users/marina"),
     "createdAt": {"__serverTimestamp__": True}, "updatedAt": {"__serverTimestamp__": True}, "deletedAt": None,
     "readingTimeMinutes": 7},
    {"id": "a3", "title": "Geoqueries at scale", "status": "draft", "author": ref("users/peter"),
     "createdAt": ts("2022-01-17T11:00:00Z"), "updatedAt": None, "deletedAt": None, "readingTimeMinutes": 15},
    {"id": "a4", "title": "Retired: the old SDK", "status": "published", "author": ref("users/sam"),
     "createdAt": ts("2019-03-01T08:00:00Z"), "updatedAt": ts("2019-03-02T08:00:00Z"),
     "deletedAt": ts("2023-10-31T23:59:59.999999999Z"), "readingTimeMinutes": 4},
]

WORDS = ["galaxy", "towel", "desert", "spice", "river", "garden", "mirror", "signal", "harbor", "engine", "letter",
         "winter", "orbit", "lantern", "archive", "meadow", "compass", "thunder", "velvet", "quartz"]
AUTHORS = ["Douglas Adams", "Frank Herbert", "Jane Austen", "James Joyce", "Ursula K. Le Guin", "Octavia E. Butler",
           "Italo Calvino", "Chimamanda Ngozi Adichie", "Haruki Murakami", "Naguib Mahfouz"]
GENRES = ["science fiction", "fantasy", "romance", "mystery", "history", "poetry", "satire", "biography"]


def generated_book(index):
    title = " ".join(rng.choice(WORDS).capitalize() for _ in range(rng.randint(1, 4)))
    slug = f"book-{index:05d}"
    tags = [{"title": rng.choice(WORDS), "color": rng.choice(list(COLORS.values()))} for _ in range(rng.randint(0, 4))]
    return {"id": slug, "title": title, "numberOfPages": rng.randint(40, 1400), "author": rng.choice(AUTHORS),
            "cover": {"small": f"https://covers.example/{slug}-s.jpg", "medium": f"https://covers.example/{slug}-m.jpg",
                      "large": f"https://covers.example/{slug}-l.jpg"},
            "genres": rng.sample(GENRES, rng.randint(1, 3)), "tags": tags,
            "rating": round(rng.uniform(1, 5), 2), "inPrint": rng.random() < 0.7,
            "published": ts(f"{rng.randint(1900, 2025)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T00:00:00Z")}


generated = [generated_book(index) for index in range(3000)]

for name, documents in [("books", books), ("languages", languages), ("offices", offices), ("colors", colors),
                        ("articles", articles), ("generated-books", generated)]:
    path = OUT / f"{name}.json"
    indent = None if name.startswith("generated") else 2
    path.write_text(json.dumps(documents, ensure_ascii=False, indent=indent) + "\n", encoding="utf-8")
    print(f"wrote {path.relative_to(OUT.parent)} ({len(documents)} documents)")
