// {{name}}: a bank-heist bot in Java.
//
// Each decision runs this program once, from the tournament folder, with 31
// arguments (docs/heist.md lists them): argument 2 is the round, 9 my
// credits. Round 1: print a bet, an integer (more than my credits is cut to
// my credits). Round 2, asked only if I bet: print one of back out, all in,
// change jobs, acquire intel, buy guard, deposit, withdraw, double cross,
// finger; anything else goes along. My folder is read-only: nothing
// survives a call.

import java.math.BigInteger;

public final class Bot {
    public static void main(String[] args) {
        if (args.length != 31) {
            System.err.println("expected 31 arguments, got " + args.length);
            System.exit(1);
        }
        if (args[1].equals("1")) {
            BigInteger credits = new BigInteger(args[8]);
            System.out.println(credits.divide(BigInteger.TEN)); // a tenth of what I have
        } else {
            System.out.println("go along");
        }
    }
}
