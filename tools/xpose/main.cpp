#include <cstdio>
#include "xpose/xpose.hpp"
int main() { std::puts("xpose: bench not written yet"); return 0; }
