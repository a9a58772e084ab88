#!/usr/bin/env python3
"""Validates docker-compose.yml without a Docker engine (none runs here):
Kafka in KRaft mode with a message limit that fits gleaner's records, a topic
creation step, one container per service from one image, and every
container's command accepted by the gleaner binary. Runs `docker compose
config` too where the compose plugin exists.

Usage: scripts/check-compose.py path/to/gleaner"""
import os, subprocess, sys, tomllib

try:
    import yaml
except ImportError:
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", "pyyaml"])
    import yaml

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
gleaner = sys.argv[1]
compose = yaml.safe_load(open(os.path.join(root, "docker-compose.yml")))
config = tomllib.load(open(os.path.join(root, "pipelines.toml"), "rb"))
services = compose["services"]
errors = []

kafka = services.get("kafka", {})
env = kafka.get("environment", {})
if "controller" not in env.get("KAFKA_PROCESS_ROLES", ""):
    errors.append("kafka is not in KRaft mode (KAFKA_PROCESS_ROLES lacks controller)")
if any("zookeeper" in k.lower() for k in services):
    errors.append("a ZooKeeper service is present; KRaft needs none")
limit = config["kafka"]["max_record_bytes"] + 64 * 1024
if int(env.get("KAFKA_MESSAGE_MAX_BYTES", 0)) < limit:
    errors.append(f"KAFKA_MESSAGE_MAX_BYTES must be >= {limit} (kafka.max_record_bytes + batch overhead)")

topics = services.get("topics", {})
if topics.get("command") != ["topics"] or "build" not in topics:
    errors.append("the topics service must build the image and run `gleaner topics`")

stages = ["fetch", "clean", "extract", "dedup", "stories", "summarize", "index", "serve"]
images = set()
for name in stages + ["topics"]:
    svc = services.get(name)
    if svc is None:
        errors.append(f"service {name} is missing")
        continue
    images.add(svc.get("image"))
    cmd = svc.get("command") or []
    if name in stages and (not cmd or cmd[0] != name):
        errors.append(f"service {name} runs {cmd}, not `gleaner {name}`")
    if name != "topics" and "topics" not in (svc.get("depends_on") or {}):
        errors.append(f"service {name} does not wait for the topics")
    # The binary must accept the command line as written.
    r = subprocess.run([gleaner, *cmd, "--help"], capture_output=True, text=True)
    if r.returncode != 0:
        errors.append(f"`gleaner {' '.join(cmd)}` is refused: {r.stderr.strip()}")
if len(images) != 1:
    errors.append(f"services use several images: {images}")

if subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
    r = subprocess.run(["docker", "compose", "-f", os.path.join(root, "docker-compose.yml"), "config", "-q"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        errors.append("docker compose config: " + r.stderr.strip())

if errors:
    print("docker-compose.yml: " + "\n  ".join(["invalid:"] + errors))
    sys.exit(1)
print(f"docker-compose.yml: ok ({len(stages)} services from one image, KRaft, message limit {env['KAFKA_MESSAGE_MAX_BYTES']})")
