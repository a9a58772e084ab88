# One image for every gleaner service: `docker run gleaner <subcommand>`.
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p gleaner

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/release/gleaner /usr/local/bin/gleaner
COPY pipelines.toml /etc/gleaner/pipelines.toml
ENV GLEANER_BROKERS=kafka:9092
ENTRYPOINT ["gleaner"]
