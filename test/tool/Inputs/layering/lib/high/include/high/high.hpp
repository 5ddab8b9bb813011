#pragma once
#include "low/low.hpp"
int High();
