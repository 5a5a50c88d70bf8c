// {{name}}: a meta tic-tac-toe bot in Java.
//
// Each move runs this program once, from the tournament folder, with 12
// arguments: my letter (X or O), boards 0-8 (9 characters each: -, X or O),
// the master board, and the last move (two digits, or xx when the move is
// free). Print one move, board then tile (e.g. 38), and exit within the
// time limit. The folder {{name}}/ is yours: {{name}}/data.txt persists
// between games.

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

public final class Bot {
    private static final int[][] LINES = {
        {0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6},
    };

    /** Neither won (the master board shows it) nor full. */
    private static boolean isOpen(String[] boards, String master, int b) {
        return master.charAt(b) == '-' && boards[b].indexOf('-') >= 0;
    }

    private static boolean winsBoard(String board, int tile, char me) {
        char[] cells = board.toCharArray();
        cells[tile] = me;
        for (int[] line : LINES) {
            if (cells[line[0]] == me && cells[line[1]] == me && cells[line[2]] == me) {
                return true;
            }
        }
        return false;
    }

    public static void main(String[] args) {
        if (args.length != 12) {
            System.err.println("expected 12 arguments, got " + args.length);
            System.exit(1);
        }
        char me = args[0].charAt(0);
        String[] boards = java.util.Arrays.copyOfRange(args, 1, 10);
        String master = args[10];
        String last = args[11];
        int forced = last.equals("xx") ? -1 : last.charAt(1) - '0';
        if (forced >= 0 && !isOpen(boards, master, forced)) {
            forced = -1; // a closed board: a free move
        }
        List<String> moves = new ArrayList<>();
        List<String> winning = new ArrayList<>();
        for (int b = 0; b < 9; b++) {
            if ((forced >= 0 && b != forced) || !isOpen(boards, master, b)) {
                continue;
            }
            for (int t = 0; t < 9; t++) {
                if (boards[b].charAt(t) == '-') {
                    moves.add("" + b + t);
                    if (winsBoard(boards[b], t, me)) {
                        winning.add("" + b + t);
                    }
                }
            }
        }
        List<String> pool = winning.isEmpty() ? moves : winning;
        System.out.println(pool.get(ThreadLocalRandom.current().nextInt(pool.size())));
    }
}
