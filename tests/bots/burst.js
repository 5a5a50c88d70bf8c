// Answers its first line with three messages in one write, and nothing more.
process.stdin.once('data', () => {
  process.stdout.write('a\nb\r\nc\n');
});
process.stdin.resume();
