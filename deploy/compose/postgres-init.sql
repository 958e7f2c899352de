-- The roles of docs/operations.md, "Database roles", made once when the PostgreSQL volume is new:
-- the schema's owner (migrations, the job queue's schema) and the app's login, which owns nothing and
-- belongs to idv_app (the group the migration grants; made here first so the login can join it).
CREATE ROLE idv_owner LOGIN PASSWORD 'owner-password-for-this-laptop' CREATEROLE;
CREATE DATABASE idv OWNER idv_owner;
CREATE ROLE idv_app NOLOGIN;
CREATE ROLE idv_server LOGIN PASSWORD 'server-password-for-this-laptop' IN ROLE idv_app;
