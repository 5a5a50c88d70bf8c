// randomJs: plays a uniformly random legal move.
const args = process.argv.slice(2);
if (args.length !== 12) {
  process.stderr.write(`randomJs: expected 12 arguments, got ${args.length}\n`);
  process.exit(2);
}
const boards = args.slice(1, 10);
const master = args[10];
const last = args[11];
const open = (b) => master[b] === '-' && boards[b].includes('-');
let targets = [...Array(9).keys()].filter(open);
if (last !== 'xx' && open(Number(last[1]))) targets = [Number(last[1])];
const moves = [];
for (const b of targets) for (let t = 0; t < 9; t++) if (boards[b][t] === '-') moves.push(`${b}${t}`);
process.stdout.write(moves[Math.floor(Math.random() * moves.length)] + '\n');
