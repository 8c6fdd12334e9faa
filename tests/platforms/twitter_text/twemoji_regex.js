// Writes apps/platforms/twemoji.py: twemoji-parser's emoji regular expression (the one
// twitter-text's parseTweet runs) as a Python pattern over UTF-16 code units.
// Run from this folder after `npm ci`: node twemoji_regex.js > ../../../apps/platforms/twemoji.py
"use strict";
const version = require("twemoji-parser/package.json").version;
const source = require("twemoji-parser/dist/lib/regex").default.source;
const tokens = source.match(/\\u[0-9a-fA-F]{4}|\\.|[^\\]/g);
const lines = [];
let line = "";
for (const token of tokens) {
  if (line.length + token.length > 96) {
    lines.push(line);
    line = "";
  }
  line += token;
}
lines.push(line);
process.stdout.write(`"""The emoji sequences X counts as one emoji (weight 2): twemoji-parser ${version}'s regular
expression, which twitter-text (X's own library) runs over the text in UTF-16 code units.

Generated from the npm package twemoji-parser ${version} (dist/lib/regex.js) by
tests/platforms/twitter_text/twemoji_regex.js; Copyright (c) 2018 Twitter, Inc., MIT License.
It knows the emoji of its Emoji version: a newer sequence is counted by its parts, as
twitter-text counts it.
"""

import re

# fmt: off
TWEMOJI_UTF16 = re.compile(
${lines.map((l) => `    r"${l}"`).join("\n")}
)
# fmt: on
`);
