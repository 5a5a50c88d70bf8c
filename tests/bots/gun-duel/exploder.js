// gun-duel interface-2 test bot: fires a bullet on every `F`, with no ammo
// on the first turn of a duel, so its gun always explodes at once.
const readline = require("readline");
const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  if (line === "F") process.stdout.write("1\n");
});
