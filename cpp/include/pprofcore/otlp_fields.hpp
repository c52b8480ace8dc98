// otlp_fields: field numbers of the OpenTelemetry profiles messages that
// pprofcore reads and writes (opentelemetry-proto v1.10.0 / v1.11.0,
// opentelemetry/proto/profiles/v1development/profiles.proto and the common,
// resource and collector messages it uses). Numbers only: no wire code here.
#pragma once
#include <cstdint>

namespace pprofcore::otlp::fields {

// ProfilesData and ExportProfilesServiceRequest share their layout.
namespace data {
constexpr uint32_t kResourceProfiles = 1, kDictionary = 2;
}
namespace dictionary {
constexpr uint32_t kMappingTable = 1, kLocationTable = 2, kFunctionTable = 3, kLinkTable = 4, kStringTable = 5,
                   kAttributeTable = 6, kStackTable = 7;
}
namespace resource_profiles {
constexpr uint32_t kResource = 1, kScopeProfiles = 2, kSchemaUrl = 3;
}
namespace scope_profiles {
constexpr uint32_t kScope = 1, kProfiles = 2, kSchemaUrl = 3;
}
namespace profile {
constexpr uint32_t kSampleType = 1, kSamples = 2, kTimeUnixNano = 3, kDurationNano = 4, kPeriodType = 5, kPeriod = 6,
                   kProfileId = 7, kDroppedAttributesCount = 8, kOriginalPayloadFormat = 9, kOriginalPayload = 10,
                   kAttributeIndices = 11;
}
namespace value_type {
constexpr uint32_t kTypeStrindex = 1, kUnitStrindex = 2;
}
namespace sample {
constexpr uint32_t kStackIndex = 1, kAttributeIndices = 2, kLinkIndex = 3, kValues = 4, kTimestampsUnixNano = 5;
}
namespace mapping {
constexpr uint32_t kMemoryStart = 1, kMemoryLimit = 2, kFileOffset = 3, kFilenameStrindex = 4, kAttributeIndices = 5;
}
namespace stack {
constexpr uint32_t kLocationIndices = 1;
}
namespace location {
constexpr uint32_t kMappingIndex = 1, kAddress = 2, kLines = 3, kAttributeIndices = 4;
}
namespace line {
constexpr uint32_t kFunctionIndex = 1, kLine = 2, kColumn = 3;
}
namespace function {
constexpr uint32_t kNameStrindex = 1, kSystemNameStrindex = 2, kFilenameStrindex = 3, kStartLine = 4;
}
namespace link {
constexpr uint32_t kTraceId = 1, kSpanId = 2;
}
namespace key_value_and_unit {
constexpr uint32_t kKeyStrindex = 1, kValue = 2, kUnitStrindex = 3;
}
// opentelemetry/proto/common/v1/common.proto
namespace any_value {
constexpr uint32_t kStringValue = 1, kBoolValue = 2, kIntValue = 3, kDoubleValue = 4, kArrayValue = 5, kKvlistValue = 6,
                   kBytesValue = 7, kStringValueStrindex = 8;
}
namespace array_value {
constexpr uint32_t kValues = 1;
}
namespace key_value_list {
constexpr uint32_t kValues = 1;
}
namespace key_value {
constexpr uint32_t kKey = 1, kValue = 2, kKeyStrindex = 3;
}
namespace scope {
constexpr uint32_t kName = 1, kVersion = 2, kAttributes = 3, kDroppedAttributesCount = 4;
}
// opentelemetry/proto/resource/v1/resource.proto
namespace resource {
constexpr uint32_t kAttributes = 1, kDroppedAttributesCount = 2;
}

}  // namespace pprofcore::otlp::fields
