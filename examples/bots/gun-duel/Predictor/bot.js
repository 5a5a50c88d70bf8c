// Predictor: a gun-duel bot on interface 2 (one process, I/F/P lines). It
// bets that the opponent repeats its last move and plays what beats it,
// never firing without ammo and shielding while the opponent is armed and
// shooting.
const readline = require("readline");

const COST = { "0": 1, "1": -1, "2": -2, "-": 0, "=": 0 };
let ammo = 0;
let theirAmmo = 0;
let last = null; // the opponent's previous move
let mine = null; // our move this turn

function choose() {
  switch (last) {
    case "0": // a loader dies to a bullet or plasma
      if (ammo >= 1) return "1";
      return "0";
    case "-": // plasma goes through a metal shield
      if (ammo >= 2) return "2";
      return "0";
    case "=": // a bullet goes through a thermal deflector
      if (ammo >= 1) return "1";
      return "0";
    case "1":
    case "2": // a shooter may shoot again: block what it can still afford
      if (theirAmmo >= 2) return "=";
      if (theirAmmo >= 1) return "-";
      return ammo >= 1 ? "1" : "0";
    default:
      return "0";
  }
}

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  switch (line[0]) {
    case "I":
      ammo = 0;
      theirAmmo = 0;
      last = null;
      mine = null;
      break;
    case "F":
      mine = choose();
      process.stdout.write(mine + "\n");
      break;
    case "P": {
      const move = line[1];
      theirAmmo += COST[move] ?? 0;
      ammo += COST[mine] ?? 0;
      last = move in COST ? move : null;
      break;
    }
  }
});
