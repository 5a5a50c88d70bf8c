// {{name}}: a meta tic-tac-toe bot in C++.
//
// Each move runs this program once, from the tournament folder, with 12
// arguments: my letter (X or O), boards 0-8 (9 characters each: -, X or O),
// the master board, and the last move (two digits, or xx when the move is
// free). Print one move, board then tile (e.g. 38), and exit within the
// time limit. The folder {{name}}/ is yours: {{name}}/data.txt persists
// between games.
#include <array>
#include <iostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

const std::array<std::array<int, 3>, 8> kLines = {{
    {0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6},
}};

bool winsBoard(std::string cells, int tile, char me) {
    cells[tile] = me;
    for (const auto& line : kLines) {
        if (cells[line[0]] == me && cells[line[1]] == me && cells[line[2]] == me) return true;
    }
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 13) {
        std::cerr << "expected 12 arguments, got " << argc - 1 << "\n";
        return 1;
    }
    const char me = argv[1][0];
    const std::vector<std::string> boards(argv + 2, argv + 11);
    const std::string master = argv[11], last = argv[12];
    // Neither won (the master board shows it) nor full.
    auto isOpen = [&](int b) {
        return master[b] == '-' && boards[b].find('-') != std::string::npos;
    };
    int forced = last == "xx" ? -1 : last[1] - '0';
    if (forced >= 0 && !isOpen(forced)) forced = -1;  // a closed board: a free move

    std::vector<std::pair<int, int>> moves, winning;
    for (int b = 0; b < 9; ++b) {
        if ((forced >= 0 && b != forced) || !isOpen(b)) continue;
        for (int t = 0; t < 9; ++t) {
            if (boards[b][t] != '-') continue;
            moves.emplace_back(b, t);
            if (winsBoard(boards[b], t, me)) winning.emplace_back(b, t);
        }
    }
    if (moves.empty()) {
        std::cerr << "no legal move\n";
        return 1;
    }
    const auto& pool = winning.empty() ? moves : winning;
    std::mt19937 rng(std::random_device{}());
    const auto [board, tile] = pool[std::uniform_int_distribution<size_t>(0, pool.size() - 1)(rng)];
    std::cout << board << tile << "\n";
    return 0;
}
