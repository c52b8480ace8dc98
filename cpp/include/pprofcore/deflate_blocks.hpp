// deflate_blocks: where the blocks of a raw deflate stream (RFC 1951) lie,
// found by walking their symbols without writing any output. Lets a deflater
// that only writes whole streams (libdeflate) produce pieces that join into
// one stream: the final block's BFINAL bit is cleared and the piece is cut
// just past that block's end. No gzip or protobuf knowledge.
#pragma once
#include <cstddef>
#include <cstdint>

namespace pprofcore::deflate {

// Bit offsets count from the least significant bit of the first byte, the
// order in which deflate reads them.
struct FinalBlock {
  size_t header_bit = 0;  // the final block's BFINAL bit
  size_t end_bit = 0;     // just past its end-of-block code (stored block: its data)
};

// Finds the final block of the stream data[0, n). Returns false when the
// bytes are not a valid deflate stream or end before the final block does;
// bytes after the final block are not looked at. Never reads outside the
// input, whatever it holds.
bool find_final_block(const uint8_t* data, size_t n, FinalBlock& out);

}  // namespace pprofcore::deflate
