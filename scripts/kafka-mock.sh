#!/usr/bin/env bash
# Starts librdkafka's in-memory mock Kafka cluster (through kcat) in the background, for tests.
#
#   scripts/kafka-mock.sh <env-file> [brokers]
#
# Waits for the cluster's bootstrap list, prints it, and writes `export KAFKA_BROKERS=...` to
# <env-file> (source it). The pid goes to <env-file>.pid and kcat's log to <env-file>.log; stop
# the cluster with `kill "$(cat <env-file>.pid)"`. The mock supports produce, consumer groups and
# offsets; not CreateTopics/DeleteTopics, idempotent or transactional producers, ListGroups.
# Topics are auto-created with 4 partitions. Everything is lost when it stops.
set -euo pipefail

env_file=${1:?usage: scripts/kafka-mock.sh <env-file> [brokers]}
brokers=${2:-3}
pid_file="${env_file}.pid"
log_file="${env_file}.log"

if ! command -v kcat >/dev/null 2>&1; then
  echo "kafka-mock: kcat is not installed (Debian/Ubuntu: apt-get install kcat)" >&2
  exit 1
fi

# A consumer of a keepalive topic keeps kcat, and so the mock cluster, running until killed.
kcat -b localhost:1 -X test.mock.num.brokers="${brokers}" -C -t stratagate-mock-keepalive -o end \
  </dev/null >/dev/null 2>"${log_file}" &
pid=$!
echo "${pid}" >"${pid_file}"

# librdkafka logs "... replaced with 127.0.0.1:P1,127.0.0.1:P2,..." once the brokers listen.
for _ in $(seq 1 100); do
  list=$(sed -n 's/.*replaced with \([^ ]*\).*/\1/p' "${log_file}" | head -n 1)
  if [ -n "${list}" ]; then
    printf 'export KAFKA_BROKERS=%s\n' "${list}" >"${env_file}"
    echo "${list}"
    exit 0
  fi
  if ! kill -0 "${pid}" 2>/dev/null; then
    echo "kafka-mock: kcat exited early:" >&2
    cat "${log_file}" >&2
    rm -f "${pid_file}"
    exit 1
  fi
  sleep 0.1
done

echo "kafka-mock: no bootstrap list from kcat after 10 s:" >&2
cat "${log_file}" >&2
kill "${pid}" 2>/dev/null || true
rm -f "${pid_file}"
exit 1
