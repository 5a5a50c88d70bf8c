// {{name}}: a bank-heist bot for node.
//
// Each decision runs this program once, from the tournament folder, with 31
// arguments (docs/heist.md lists them): argument 2 is the round, 9 my
// credits. Round 1: print a bet, an integer (more than my credits is cut to
// my credits). Round 2, asked only if I bet: print one of back out, all in,
// change jobs, acquire intel, buy guard, deposit, withdraw, double cross,
// finger; anything else goes along. My folder is read-only: nothing
// survives a call.

const args = process.argv.slice(2);
const round = Number(args[1]);
const credits = BigInt(args[8]);
if (round === 1) {
  console.log((credits / 10n).toString()); // a tenth of what I have
} else {
  console.log("go along");
}
