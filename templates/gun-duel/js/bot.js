// {{name}}: a gun-duel bot for node.
//
// Interface io: this program runs once for the whole tournament, from the
// tournament folder. It reads lines: I<id> when a duel starts (the
// opponent's id), F when a move is wanted, P<c> after every turn with the
// opponent's move (? for none). Answer each F with one move and flush:
// 0 load (+1 ammo), 1 bullet (-1), 2 plasma (-2), - metal shield,
// = thermal deflector. Firing without the ammo makes the gun explode.

const readline = require("readline");

const AMMO = { 0: 1, 1: -1, 2: -2, "-": 0, "=": 0 };

// A bullet kills a loader or a thermal deflector; metal stops it.
// Plasma kills a loader, a bullet or metal; thermal stops it.
function choose(mine, theirs) {
  if (theirs >= 2) return "=";
  if (theirs === 1) return "-";
  if (mine >= 1) return "1"; // an unarmed opponent can only load or shield
  return "0";
}

let mine = 0;
let theirs = 0;
readline.createInterface({ input: process.stdin }).on("line", (raw) => {
  const line = raw.trim();
  if (line.startsWith("I")) {
    mine = 0;
    theirs = 0;
  } else if (line === "F") {
    const move = choose(mine, theirs);
    mine += AMMO[move];
    process.stdout.write(move + "\n");
  } else if (line.startsWith("P")) {
    theirs += AMMO[line.slice(1)] ?? 0;
  }
});
