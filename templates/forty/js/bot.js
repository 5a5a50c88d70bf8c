// {{name}}: a forty bot for node.
//
// This program runs once for the whole tournament, from the tournament
// folder, and plays many games at once over stdin and stdout, a line each:
//   forty 1 SEED             -> answer: ok {{name}}
//   new G SEAT END           a game G in which I sit at SEAT; no answer
//   ask G L THROWS SCORES    -> answer: G 1 to throw again, G 0 to stop
//   end G                    game G is over; no answer
// THROWS are this turn's dice (comma-separated, never a 6), SCORES every
// seat's score (SCORES[SEAT] is mine), L is 1 in the last round. Answer
// each ask in order, and flush once no more input is waiting. At the end
// of input, exit with status 0.

const readline = require("readline");

// Lines read in one chunk arrive together: their answers go out in one
// write once the chunk is done.
let out = [];
function answer(text) {
  out.push(text);
  if (out.length === 1) {
    setImmediate(() => {
      process.stdout.write(out.join("\n") + "\n");
      out = [];
    });
  }
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const [word, game, , throws] = line.split(" ");
  if (word === "forty") {
    answer("ok {{name}}");
  } else if (word === "ask") {
    const sum = throws.split(",").reduce((total, die) => total + Number(die), 0);
    answer(`${game} ${sum < 15 ? 1 : 0}`); // throw while the turn is worth less than 15
  }
  // new and end need no answer.
});
