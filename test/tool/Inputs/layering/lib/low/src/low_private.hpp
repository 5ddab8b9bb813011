#pragma once
inline int LowPrivate() { return 2; }
