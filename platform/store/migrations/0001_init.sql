-- Connectors: sources and destinations share one table; names are unique per role.
CREATE TABLE connectors (
    id          TEXT PRIMARY KEY,
    role        TEXT NOT NULL,
    name        TEXT NOT NULL,
    type        TEXT NOT NULL,
    config      TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    updated_at  TEXT
);
CREATE UNIQUE INDEX connectors_role_name ON connectors (role, name);

CREATE TABLE connection_checks (
    id            TEXT PRIMARY KEY,
    connector_id  TEXT NOT NULL REFERENCES connectors (id) ON DELETE CASCADE,
    status        TEXT NOT NULL,
    reason        TEXT,
    created_at    TEXT NOT NULL,
    reported_at   TEXT
);
CREATE INDEX connection_checks_connector ON connection_checks (connector_id, created_at);

CREATE TABLE workflows (
    id              TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    source_id       TEXT,
    destination_id  TEXT,
    workflow_type   TEXT,
    nodes           TEXT NOT NULL,
    schedule        TEXT,
    status          TEXT NOT NULL,
    reprocess_all   INTEGER NOT NULL,
    created_at      TEXT NOT NULL,
    updated_at      TEXT,
    next_run_at     TEXT
);
CREATE INDEX workflows_next_run ON workflows (next_run_at);

-- Jobs keep a snapshot of the workflow they run, so editing a workflow never changes a job.
CREATE TABLE jobs (
    id                 TEXT PRIMARY KEY,
    workflow_id        TEXT NOT NULL,
    workflow_name      TEXT NOT NULL,
    source_id          TEXT NOT NULL,
    destination_id     TEXT NOT NULL,
    nodes              TEXT NOT NULL,
    reprocess_all      INTEGER NOT NULL,
    job_type           TEXT NOT NULL,
    status             TEXT NOT NULL,
    processing_status  TEXT NOT NULL,
    message            TEXT,
    listing_done       INTEGER NOT NULL DEFAULT 0,
    lister_id          TEXT,
    listing_error      TEXT,
    skipped            INTEGER NOT NULL DEFAULT 0,
    created_at         TEXT NOT NULL,
    started_at         TEXT,
    finished_at        TEXT
);
CREATE INDEX jobs_workflow ON jobs (workflow_id, created_at);
CREATE INDEX jobs_status ON jobs (status);
-- At most one active job per workflow ("a new job if none is currently active").
CREATE UNIQUE INDEX jobs_one_active ON jobs (workflow_id) WHERE status IN ('SCHEDULED', 'IN_PROGRESS');

-- One row per source document of a job. state: pending, in_progress, success, failed, cancelled.
-- stage is the index of the node the file reached (0 = source, then the workflow nodes, then
-- the destination). worker_id names the process that claimed it (see workers).
CREATE TABLE job_files (
    id           TEXT PRIMARY KEY,
    job_id       TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    seq          INTEGER NOT NULL,
    doc_id       TEXT NOT NULL,
    filename     TEXT NOT NULL,
    version      TEXT NOT NULL,
    document     TEXT NOT NULL,
    state        TEXT NOT NULL,
    stage        INTEGER NOT NULL DEFAULT 0,
    error        TEXT,
    worker_id    TEXT,
    attempts     INTEGER NOT NULL DEFAULT 0,
    elements     INTEGER NOT NULL DEFAULT 0,
    started_at   TEXT,
    finished_at  TEXT
);
CREATE UNIQUE INDEX job_files_doc ON job_files (job_id, doc_id);
CREATE INDEX job_files_state ON job_files (job_id, state);
CREATE INDEX job_files_worker ON job_files (state, worker_id);

-- The elements a file produced at its last node, gzip-compressed JSON, for the download endpoint.
CREATE TABLE job_outputs (
    file_id   TEXT NOT NULL REFERENCES job_files (id) ON DELETE CASCADE,
    node_id   TEXT NOT NULL,
    data      {{BLOB}} NOT NULL,
    PRIMARY KEY (file_id, node_id)
);

-- The document versions a workflow has processed, for reprocess_all = false.
CREATE TABLE processed_versions (
    workflow_id   TEXT NOT NULL,
    doc_id        TEXT NOT NULL,
    version       TEXT NOT NULL,
    processed_at  TEXT NOT NULL,
    PRIMARY KEY (workflow_id, doc_id)
);

-- Live worker processes; a file claimed by a worker whose heartbeat stopped is given back.
CREATE TABLE workers (
    id            TEXT PRIMARY KEY,
    host          TEXT NOT NULL,
    started_at    TEXT NOT NULL,
    heartbeat_at  TEXT NOT NULL
);

CREATE TABLE meta (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
);
