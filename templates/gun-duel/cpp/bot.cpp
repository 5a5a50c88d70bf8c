// {{name}}: a gun-duel bot in C++.
//
// Interface io: this program runs once for the whole tournament, from the
// tournament folder. It reads lines: I<id> when a duel starts (the
// opponent's id), F when a move is wanted, P<c> after every turn with the
// opponent's move (? for none). Answer each F with one move and flush:
// 0 load (+1 ammo), 1 bullet (-1), 2 plasma (-2), - metal shield,
// = thermal deflector. Firing without the ammo makes the gun explode.
#include <iostream>
#include <string>

namespace {

int ammoChange(char move) {
    switch (move) {
        case '0': return 1;
        case '1': return -1;
        case '2': return -2;
        default: return 0;  // shields, and ? for no move
    }
}

// A bullet kills a loader or a thermal deflector; metal stops it.
// Plasma kills a loader, a bullet or metal; thermal stops it.
char choose(int mine, int theirs) {
    if (theirs >= 2) return '=';
    if (theirs == 1) return '-';
    if (mine >= 1) return '1';  // an unarmed opponent can only load or shield
    return '0';
}

}  // namespace

int main() {
    int mine = 0, theirs = 0;
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty()) continue;
        if (line[0] == 'I') {
            mine = theirs = 0;
        } else if (line[0] == 'F') {
            const char move = choose(mine, theirs);
            mine += ammoChange(move);
            std::cout << move << std::endl;  // endl flushes
        } else if (line[0] == 'P' && line.size() > 1) {
            theirs += ammoChange(line[1]);
        }
    }
    return 0;
}
