#include <lib/worker.hpp>

int main() { Spawn(); }
