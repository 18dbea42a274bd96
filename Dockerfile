# kubescribe: the app on the embedded host (`serve`, the default command) and the forwarder
# (`forward --config <file>`), one image. Build it with `npm run image` (infra/image/build-image.ts):
# the build context is the folder it stages (the compiled app and its production dependencies, no
# sources, no dev dependencies), and BASE is Node 22 LTS with its libraries, assembled from the build
# machine because no registry is assumed. On a machine with a registry, BASE can be any glibc Node 22
# image with `node` on its PATH (e.g. node:22-bookworm-slim); the data folder is then made writable by
# the volume (fsGroup 65532 in deploy/kubescribe).
ARG BASE=localhost/kubescribe-node:22

# Stage 1: the app's files on the base, checked: the build fails here, not at the first start, when
# the native SQLite binding does not load on the base's libraries or the CLI cannot load.
FROM ${BASE} AS checked
COPY . /app
RUN ["node", "-e", "new (require('/app/node_modules/better-sqlite3'))(':memory:').close(); require('/app/dist/shared/forwarder/cli.js')"]

# Stage 2: the runtime. Root owns the app (read-only to the process); the process runs as 65532 and
# writes only to the data folder (a volume) and /tmp (HOME), so the root file system can be read-only.
FROM ${BASE}
COPY --from=checked /app /app
WORKDIR /app
LABEL org.opencontainers.image.title=kubescribe \
      org.opencontainers.image.description="kubescribe: serve (the app on the embedded host) or forward (the forwarder)" \
      org.opencontainers.image.licenses=Apache-2.0
ENV NODE_ENV=production \
    HOME=/tmp \
    KUBESCRIBE_DATA=/var/lib/kubescribe
USER 65532:65532
VOLUME ["/var/lib/kubescribe"]
EXPOSE 7071
ENTRYPOINT ["node", "/app/entrypoint.js"]
CMD ["serve"]
