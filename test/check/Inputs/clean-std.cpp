// Plain C++ without any type of the shipped models (no-model-types.cpp).
#include <map>
#include <string>

int Count(const std::map<std::string, int>& m) { return static_cast<int>(m.size()); }
