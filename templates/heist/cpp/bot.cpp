// {{name}}: a bank-heist bot in C++.
//
// Each decision runs this program once, from the tournament folder, with 31
// arguments (docs/heist.md lists them): argument 2 is the round, 9 my
// credits. Round 1: print a bet, an integer (more than my credits is cut to
// my credits). Round 2, asked only if I bet: print one of back out, all in,
// change jobs, acquire intel, buy guard, deposit, withdraw, double cross,
// finger; anything else goes along. My folder is read-only: nothing
// survives a call.
#include <iostream>
#include <string>

int main(int argc, char** argv) {
    if (argc != 32) {
        std::cerr << "expected 31 arguments, got " << argc - 1 << "\n";
        return 1;
    }
    if (std::string(argv[2]) == "1") {
        const long long credits = std::stoll(argv[9]);
        std::cout << credits / 10 << "\n";  // a tenth of what I have
    } else {
        std::cout << "go along\n";
    }
    return 0;
}
