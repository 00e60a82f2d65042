# compactd: a release build on Debian, run as an unprivileged user.
# The image has no Postgres of its own: give it DATABASE_URL (see
# docker-compose.yml). Migrations are embedded and run at start.

FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock rustfmt.toml ./
COPY src ./src
# The private Postgres (a workspace member, unused in the image: it has DATABASE_URL).
COPY crates ./crates
COPY migrations ./migrations
# The dashboard's files are embedded in the binary.
COPY assets ./assets
# The manifest names the benchmark examples; cargo wants their files present.
COPY bench ./bench
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p compactd && cp target/release/compactd /usr/local/bin/compactd

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --no-create-home compactd
COPY --from=build /usr/local/bin/compactd /usr/local/bin/compactd
USER compactd
ENV COMPACTD_ADDR=0.0.0.0:8080 \
    RUST_LOG=info
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/compactd"]
CMD ["serve"]
