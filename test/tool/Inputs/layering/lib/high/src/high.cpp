#include "high/high.hpp"
#include "low_private.hpp"
int High() { return Low() + LowPrivate(); }
