#pragma once
#include <string>
namespace logs {
// Copies a container's output until the pipe closes (stream.cpp).
void CopyOutput(int pipe_fd, std::string* into);
// Never blocks (stream.cpp).
void Annotate(std::string* line);
}  // namespace logs
