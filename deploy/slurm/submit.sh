#!/bin/bash
# Submits a tournament as SHARDS array tasks and its merge after them:
#
#   deploy/slurm/submit.sh /shared/my-tournament 16
set -euo pipefail
dir=$(realpath "${1:?usage: submit.sh TOURNAMENT_DIR [SHARDS]}")
shards=${2:-16}
here=$(dirname "$(realpath "$0")")
array=$(sbatch --parsable --array=0-$((shards - 1)) "$here/shard.sbatch" "$dir")
# --parsable prints JOB_ID or JOB_ID;CLUSTER.
sbatch --dependency=afterok:"${array%%;*}" "$here/merge.sbatch" "$dir"
