// encode: columnar Profile -> profile.proto bytes, deterministic (fields in number
// order, packed repeated scalars, zero scalars omitted), optionally gzipped.
#pragma once
#include <string>

#include "pprofcore/profile.hpp"

namespace pprofcore {

std::string encode_raw(const Profile& p);
// encode_raw into `out`, replacing its contents and reusing its storage (a
// caller encoding profile after profile writes into memory already mapped).
// Samples of a large profile are written by up to `threads` threads (0 = one
// per MiB of samples, at most the cores); the bytes never depend on it.
void encode_raw_into(const Profile& p, std::string& out, unsigned threads = 0);
// level -1 = default; compress=false returns encode_raw.
std::string encode(const Profile& p, bool compress = true, int level = -1);

}  // namespace pprofcore
