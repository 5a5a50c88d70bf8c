// Prints bytes that are not a move, some of them not UTF-8.
process.stdout.write(Buffer.from([0xff, 0xfe, 0x39, 0x39, 0x0a]));
process.stdout.write('hello, referee\n');
