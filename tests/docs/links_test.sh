#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every relative link in the Markdown documentation resolves: README.md, docs/**/*.md and the
# READMEs under bench/ and examples/. A link to a file must name an existing file or folder of
# the repository; a #fragment into a Markdown file must name one of its headings (GitHub's
# anchors). Web addresses are not followed; fenced code blocks and inline code are skipped.
# Prints every broken link as FILE:LINE: TARGET (why) and exits 1 if there is one.
# Usage: links_test.sh PATH/TO/SOURCE_DIR
set -u
source_dir="${1:?usage: $0 PATH/TO/SOURCE_DIR}"
exec python3 - "$source_dir" <<'PY'
import os, re, sys

root = os.path.realpath(sys.argv[1])
files = [os.path.join(root, "README.md")]
for base in ("docs", "bench", "examples"):
    for folder, _, names in sorted(os.walk(os.path.join(root, base))):
        files += [os.path.join(folder, n) for n in sorted(names)
                  if n.endswith(".md") and (base == "docs" or n == "README.md")]

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def prose_lines(path):
    """(line number, text) of the lines outside fenced code blocks."""
    inside = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                inside = not inside
            elif not inside:
                yield number, line


def anchors(path):
    """GitHub's heading anchors: lower case, punctuation but '-' and '_' dropped, spaces to '-',
    repeated headings numbered -1, -2, ..."""
    seen, result = {}, set()
    for _, line in prose_lines(path):
        m = HEADING.match(line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            result.add(slug if n == 0 else f"{slug}-{n}")
    return result


broken = checked = 0
for path in filter(os.path.isfile, files):
    for number, line in prose_lines(path):
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto:, ...
                continue
            checked += 1
            file_part, _, fragment = target.partition("#")
            resolved = os.path.realpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            why = None
            if resolved != root and not resolved.startswith(root + os.sep):
                why = "outside the repository"
            elif not os.path.exists(resolved):
                why = "no such file"
            elif fragment and resolved.endswith(".md") and fragment.lower() not in anchors(resolved):
                why = "no heading with that anchor"
            if why:
                broken += 1
                print(f"{os.path.relpath(path, root)}:{number}: {target} ({why})")

print(f"{checked} relative links in {len(files)} files, {broken} broken")
sys.exit(1 if broken else 0)
PY
