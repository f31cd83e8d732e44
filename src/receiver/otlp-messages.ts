/**
 * The OTLP/HTTP logs messages, read and written with protobufjs from their .proto definitions: the
 * request (ExportLogsServiceRequest), the answer (ExportLogsServiceResponse, with partial success)
 * and an error's google.rpc.Status. Field numbers and names as in opentelemetry-proto v1 (only the
 * messages a logs receiver needs). A protobuf request becomes the OTLP/JSON form (camelCase names,
 * 64-bit integers as decimal strings, trace and span ids in hex), so one path reads both encodings.
 */
import protobuf from 'protobufjs';

const PROTO = `
syntax = "proto3";
package opentelemetry.proto;

message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope {
  string name = 1;
  string version = 2;
  repeated KeyValue attributes = 3;
  uint32 dropped_attributes_count = 4;
}
message Resource {
  repeated KeyValue attributes = 1;
  uint32 dropped_attributes_count = 2;
}
message LogRecord {
  fixed64 time_unix_nano = 1;
  fixed64 observed_time_unix_nano = 11;
  int32 severity_number = 2;
  string severity_text = 3;
  AnyValue body = 5;
  repeated KeyValue attributes = 6;
  uint32 dropped_attributes_count = 7;
  fixed32 flags = 8;
  bytes trace_id = 9;
  bytes span_id = 10;
  string event_name = 12;
}
message ScopeLogs {
  InstrumentationScope scope = 1;
  repeated LogRecord log_records = 2;
  string schema_url = 3;
}
message ResourceLogs {
  Resource resource = 1;
  repeated ScopeLogs scope_logs = 2;
  string schema_url = 3;
}
message ExportLogsServiceRequest { repeated ResourceLogs resource_logs = 1; }
message ExportLogsPartialSuccess {
  int64 rejected_log_records = 1;
  string error_message = 2;
}
message ExportLogsServiceResponse { ExportLogsPartialSuccess partial_success = 1; }
message Status {
  int32 code = 1;
  string message = 2;
}
`;

const root = protobuf.parse(PROTO, { keepCase: false }).root;
const REQUEST = root.lookupType('opentelemetry.proto.ExportLogsServiceRequest');
const RESPONSE = root.lookupType('opentelemetry.proto.ExportLogsServiceResponse');
const STATUS = root.lookupType('opentelemetry.proto.Status');

/** google.rpc.Code values an OTLP receiver answers with. */
export const RPC_CODE = { INVALID_ARGUMENT: 3, UNAUTHENTICATED: 16, RESOURCE_EXHAUSTED: 8, UNAVAILABLE: 14, UNIMPLEMENTED: 12 } as const;

const HEX_FIELDS = new Set(['traceId', 'spanId']);

/** A protobuf ExportLogsServiceRequest in its OTLP/JSON form; throws when the bytes are not one. */
export function decodeProtobufRequest(bytes: Uint8Array): unknown {
  const message = REQUEST.decode(bytes);
  const object = REQUEST.toObject(message, { longs: String, enums: Number, bytes: String, defaults: false, oneofs: false });
  return JSON.parse(JSON.stringify(object), (key, value: unknown) =>
    HEX_FIELDS.has(key) && typeof value === 'string' ? Buffer.from(value, 'base64').toString('hex') : value,
  );
}

export interface ExportAnswer {
  /** Records set aside (counted in partial_success); 0 for a full success. */
  readonly rejected: number;
  readonly errorMessage?: string;
}

export function encodeResponse(answer: ExportAnswer, as: 'json' | 'protobuf'): Buffer {
  const partialSuccess = answer.rejected > 0 ? { rejectedLogRecords: answer.rejected, errorMessage: answer.errorMessage ?? '' } : undefined;
  if (as === 'json') {
    // OTLP/JSON writes 64-bit integers as strings.
    const body = partialSuccess ? { partialSuccess: { ...partialSuccess, rejectedLogRecords: String(answer.rejected) } } : {};
    return Buffer.from(JSON.stringify(body));
  }
  return Buffer.from(RESPONSE.encode(RESPONSE.fromObject(partialSuccess ? { partialSuccess } : {})).finish());
}

export function encodeStatus(code: number, message: string, as: 'json' | 'protobuf'): Buffer {
  if (as === 'json') return Buffer.from(JSON.stringify({ code, message }));
  return Buffer.from(STATUS.encode(STATUS.fromObject({ code, message })).finish());
}

/** For tests and the emulator's own checks: an OTLP/JSON-form request encoded as protobuf. */
export function encodeProtobufRequest(request: unknown): Uint8Array {
  return REQUEST.encode(REQUEST.fromObject(request as Record<string, unknown>)).finish();
}
