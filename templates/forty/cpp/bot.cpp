// {{name}}: a forty bot in C++.
//
// This program runs once for the whole tournament, from the tournament
// folder, and plays many games at once over stdin and stdout, a line each:
//   forty 1 SEED             -> answer: ok {{name}}
//   new G SEAT END           a game G in which I sit at SEAT; no answer
//   ask G L THROWS SCORES    -> answer: G 1 to throw again, G 0 to stop
//   end G                    game G is over; no answer
// THROWS are this turn's dice (comma-separated, never a 6), SCORES every
// seat's score (SCORES[SEAT] is mine), L is 1 in the last round. Answer
// each ask in order, and flush once no more input is waiting. At the end
// of input, exit with status 0.
#include <iostream>
#include <sstream>
#include <string>

int main() {
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {
        std::istringstream in(line);
        std::string word, game, last, throws;
        in >> word >> game >> last >> throws;
        if (word == "forty") {
            std::cout << "ok {{name}}\n";
        } else if (word == "ask") {
            int sum = 0;
            std::istringstream dice(throws);
            for (std::string die; std::getline(dice, die, ',');) sum += std::stoi(die);
            // Throw while the turn is worth less than 15.
            std::cout << game << (sum < 15 ? " 1\n" : " 0\n");
        }
        // new and end need no answer. Send the answers once nothing more
        // is waiting in this batch.
        if (std::cin.rdbuf()->in_avail() <= 0) std::cout.flush();
    }
    return 0;
}
