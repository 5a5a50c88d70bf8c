// {{name}}: a gun-duel bot in Java.
//
// Interface io: this program runs once for the whole tournament, from the
// tournament folder. It reads lines: I<id> when a duel starts (the
// opponent's id), F when a move is wanted, P<c> after every turn with the
// opponent's move (? for none). Answer each F with one move and flush:
// 0 load (+1 ammo), 1 bullet (-1), 2 plasma (-2), - metal shield,
// = thermal deflector. Firing without the ammo makes the gun explode.

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;

public final class Bot {
    private static int ammoChange(char move) {
        switch (move) {
            case '0': return 1;
            case '1': return -1;
            case '2': return -2;
            default: return 0; // shields, and ? for no move
        }
    }

    // A bullet kills a loader or a thermal deflector; metal stops it.
    // Plasma kills a loader, a bullet or metal; thermal stops it.
    private static char choose(int mine, int theirs) {
        if (theirs >= 2) return '=';
        if (theirs == 1) return '-';
        if (mine >= 1) return '1'; // an unarmed opponent can only load or shield
        return '0';
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        int mine = 0;
        int theirs = 0;
        String line;
        while ((line = in.readLine()) != null) {
            if (line.startsWith("I")) {
                mine = 0;
                theirs = 0;
            } else if (line.startsWith("F")) {
                char move = choose(mine, theirs);
                mine += ammoChange(move);
                System.out.println(move);
                System.out.flush();
            } else if (line.startsWith("P") && line.length() > 1) {
                theirs += ammoChange(line.charAt(1));
            }
        }
    }
}
