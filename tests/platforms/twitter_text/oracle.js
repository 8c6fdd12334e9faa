// twitter-text (the npm package, X's own library) as an oracle for the differential tests in
// tests/platforms/test_text_differential.py: reads one JSON string per line on stdin and answers
// each at once, one JSON object per line: its weightedLength and the URLs it counts.
"use strict";
const twitter = require("twitter-text");
const readline = require("readline");

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => {
  if (!line) return;
  const text = JSON.parse(line);
  const parsed = twitter.parseTweet(text);
  const urls = twitter.extractUrlsWithIndices(text).map((u) => u.url);
  process.stdout.write(JSON.stringify({ weighted: parsed.weightedLength, urls }) + "\n");
});
