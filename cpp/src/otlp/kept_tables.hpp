// kept_tables: the intermediate tables of an OTLP decode (the Message as read
// and the converter's lookups), kept between loads. A fresh set faulted its
// pages in on every load and glibc gave them back when it was freed (in a C++
// program, a third of large.cpu's OTLP decode was the kernel's;
// docs/performance-log.md, OTLP round six). The profiles made never point
// into these tables.
#pragma once
#include <memory>

#include "message.hpp"

namespace pprofcore::otlp::detail {

struct DecodeTables {
  Message message;
  ConverterTables converter;
};

// The tables for one decode: the process's kept set when it is free (from the
// process's second decode on; a process that decodes once keeps nothing), a
// new set otherwise. On destruction the set is emptied and kept when its
// buffers are small enough (kKeptBytes), else freed.
class KeptTables {
 public:
  KeptTables();
  ~KeptTables();
  KeptTables(const KeptTables&) = delete;
  KeptTables& operator=(const KeptTables&) = delete;

  Message& message() { return tables_->message; }
  ConverterTables& converter() { return tables_->converter; }

 private:
  std::unique_ptr<DecodeTables> tables_;
  bool keep_ = false;
};

}  // namespace pprofcore::otlp::detail
