// snitch: hunts double-crossers. It joins crowded heists with a small stake
// and answers "finger": if its own heist succeeds it draws eight times from
// the real heisters, and every double-crosser it finds pays it a quarter of
// its credits. In quiet heists (where nobody bothers to double-cross) it
// goes along, since a finger that finds nobody costs 5 % of its paycheck.
if (process.argv.length < 2 + 31) {
  console.log('0');
  process.exit(0);
}
// Arguments 2 to 5 and 9: round, players, moved, heisters, my credits.
const args = process.argv.slice(-31).map(Number);
const [round, players, moved, heisters] = args.slice(1, 5);
const credits = args[8];
const CROWDED = 20;

if (round === 1) {
  // Only a crowded game attracts double-crossers; the crowd is mostly rabble,
  // about half of whom bet.
  const expected = heisters + (players - moved - 1) / 2;
  console.log(expected >= CROWDED ? Math.min(credits, 5) : 0);
} else {
  console.log(heisters >= CROWDED ? 'finger' : 'guncheck');
}
