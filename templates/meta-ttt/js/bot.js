// {{name}}: a meta tic-tac-toe bot for node.
//
// Each move runs this program once, from the tournament folder, with 12
// arguments: my letter (X or O), boards 0-8 (9 characters each: -, X or O),
// the master board, and the last move (two digits, or xx when the move is
// free). Print one move, board then tile (e.g. 38), and exit within the
// time limit. The folder {{name}}/ is yours: {{name}}/data.txt persists
// between games.

const LINES = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];

const [me, ...rest] = process.argv.slice(2);
const boards = rest.slice(0, 9);
const [master, last] = rest.slice(9);

// Neither won (master shows it) nor full.
const isOpen = (b) => master[b] === "-" && boards[b].includes("-");

const forced = last === "xx" ? -1 : Number(last[1]);
const allowed = forced >= 0 && isOpen(forced) ? [forced] : [0, 1, 2, 3, 4, 5, 6, 7, 8].filter(isOpen);
const moves = [];
for (const b of allowed) {
  for (let t = 0; t < 9; t++) {
    if (boards[b][t] === "-") moves.push([b, t]);
  }
}

const winsBoard = ([b, t]) => {
  const cells = boards[b].slice(0, t) + me + boards[b].slice(t + 1);
  return LINES.some((line) => line.every((i) => cells[i] === me));
};
const winning = moves.filter(winsBoard);
const pool = winning.length > 0 ? winning : moves;
const [board, tile] = pool[Math.floor(Math.random() * pool.length)];
console.log(`${board}${tile}`);
