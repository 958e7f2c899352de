// Generated from openapi.yaml by `npm run client:generate` (openapi-typescript). Do not edit: CI fails when it drifts.
export interface paths {
    "/v1/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The signed-in end user's own account, verification and sessions
         * @description Takes only the end user's JWT access token for the resource `<PUBLIC_BASE_URL>/v1`, issued by the provider at
         *     `/v1/oidc` (docs/accounts-and-oidc.md), with scope `account`. A tenant's app sees the user's sessions at
         *     that tenant only; the account portal, at every tenant (D20). A tenant API key is 403 `user_token_required`, a
         *     token without `account` 403 `insufficient_scope`; a missing, expired, forged, wrong-audience or revoked-grant
         *     token is 401. Metered per user in `default`.
         */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/delete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Two-phase erasure of the signed-in user
         * @description The account portal's token only (scope `data_rights`) with a sign-in within the last 10 minutes, else 403 `reauthentication_required` (D20). Soft delete at once (sessions withdrawn, biometrics purged within 60 s, tenants told `user.deleted`); the hard purge follows 14 days later (`user.purged`). See docs/data-rights.md.
         */
        post: operations["deleteMe"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/restrict": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Restrict processing of the signed-in user
         * @description Tenants' reads of the user's sessions then answer 409 `user_restricted`; no session can be bound; checks pause. Asking again answers with the same request.
         */
        post: operations["restrictMe"];
        /** Lift the restriction */
        delete: operations["liftMyRestriction"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/object": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Object to a kind of processing */
        post: operations["objectToProcessing"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/biometrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Purge the signed-in user's biometric data within 60 s
         * @description Templates, selfie images and liveness frames of every session of the user; one `biometric.purged` per verification and artifact class to the tenant; the `liveness` badge goes. No request body.
         */
        delete: operations["purgeMyBiometrics"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/verifications/{id}/review": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The review cases of one of your verifications and their status */
        get: operations["getVerificationReviews"];
        put?: never;
        /**
         * Ask for human review of one of your verification decisions
         * @description Another user's verification is 404. A second request while a case is open answers with that case.
         */
        post: operations["requestVerificationReview"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/profile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The signed-in user's profile, objections and pending changes */
        get: operations["getMyProfile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change the profile
         * @description Self-managed fields change at once; verified fields (legal_name, date_of_birth, nationality) become pending changes for review.
         */
        patch: operations["updateMyProfile"];
        trace?: never;
    };
    "/v1/me/requests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The signed-in user's data-subject requests, newest first (an export's link and document key included) */
        get: operations["listMyRequests"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/data-export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Export everything about the user as a signed zip (portability); asking again while one is open returns it
         * @description The account portal's token only (scope `data_rights`) with a sign-in within the last 10 minutes, else 403 `reauthentication_required` (D20). Answers 202 with the job. Its `document_key` (base64) opens the encrypted `documents/*` of the bundle and is shown only here and in `GET /v1/me/requests`; once `completed` the job carries `download_url` (pre-signed, 7 days). docs/data-rights.md, "The export bundle".
         */
        post: operations["requestDataExport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/requests/{id}/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Confirm a tenant's delegated request: needs both the user's token and the token of the mailed link */
        post: operations["confirmDelegatedRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/verify/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List sessions
         * @description The sessions of the key's tenant in the key's mode, newest first, `limit` at a time (1-100, default 20). Pass the
         *     answer's `next_cursor` as `after` for the next page; `next_cursor` is null on the last page. `status` and
         *     `reference_id` filter. An unknown parameter, or a cursor this API did not return, is a 400 `invalid_request`.
         *     Needs `sessions:read`. Every item is the session as `GET /v1/verify/sessions/{id}` returns it.
         */
        get: operations["listSessions"];
        put?: never;
        /**
         * Create a verification session
         * @description Accepts the definition shape (`flow_id`, `tier`, `reference_id`) or the quickstart shape (`tiers`, `reference`;
         *     `flow_id` may be left out and the tenant's default flow is used). The response is always the definition shape,
         *     and only this response carries `client_secret`. Sessions created with a test key (`sk_test_...`) resolve by
         *     themselves 10 seconds after creation; `metadata.test_outcome` (`approved`, `declined`, `review`) selects how.
         *     For T3/T4 test sessions, `metadata.test_identity` (`{full_name, birth_date?, nationality?}`) is screened against
         *     the loaded sanctions lists when the session resolves: a hit fails `sanctions_screening`, fills `sanctions_hits` and
         *     turns an approval into `review`. A bad `test_identity` is a 400 `invalid_request`.
         */
        post: operations["createSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/verify/sessions/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a session
         * @description Withdraws a session that has not reached a terminal status (`created`, `in_progress`, `processing` or
         *     `manual_review` -> `withdrawn`); its hosted link stops working and `verification.*` subscribers see the change.
         *     A terminal session is 409 `invalid_state`; another tenant's or mode's session is 404. Needs `sessions:write`.
         *     No request body.
         */
        post: operations["cancelSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/verify/sessions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a session
         * @description A session of another tenant, or of the other mode (test/live), is reported as not found. A session bound to a user who deleted their account is not found, and one of a user who restricted processing is 409 `user_restricted`, for the tenant key and the session's `client_secret` alike.
         */
        get: operations["getSession"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/verify/manual-review/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve or reject a session in manual_review
         * @description The admin override for a session in `manual_review`; needs a key with the `sessions:review` scope.
         *     `approve` moves the session to `success` (decision `approved`), `reject` to `failed` (decision `declined`).
         *     While the tenant has a second reviewer confirm every decline (set in the console), `reject` is refused with
         *     409 `invalid_state` and nothing is stored.
         */
        post: operations["reviewSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/verify/sessions/{id}/decisions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A session's decision history
         * @description Every decision on the session, oldest first: the check pipeline's (`source: automated`, with the policy
         *     version and the checks it read) and each person's (`source: human`). Needs a key with `sessions:read`;
         *     a session's `client_secret` cannot read it (403). Another tenant's session is 404.
         */
        get: operations["listSessionDecisions"];
        put?: never;
        /**
         * Decide a session (approve, decline, reverse)
         * @description A person's decision; needs a key with the `sessions:review` scope.
         *     `approve` / `decline` a session in `manual_review` (to `success` / `failed`, as the manual-review override does).
         *     `reverse` a session in `success` or `failed` within 90 days of its `completed_at`: the outcome flips, its
         *     badges and the user's verified claim follow, and the verification event is sent again. Anything else is
         *     409 `invalid_state`. Of two reviewers deciding at once, one gets 201 and the other 409; a `reverse` that
         *     names the decision it reverses (`reverses`) is refused with 409 when another decision came in between.
         *     While the tenant's "a second reviewer confirms every decline" is on (set in the console), a decision that
         *     ends in a decline (`decline`, or a `reverse` of a `success`) is refused with 409 `invalid_state` and nothing
         *     is stored: two members propose and confirm it in the console (docs/console.md, "Second reviewer").
         */
        post: operations["decideSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/verify/sessions/{id}/chip": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Submit the passport chip's data (the session's client_secret)
         * @description Called by the tenant's mobile app (web browsers cannot read NFC chips) with what it read from the passport chip:
         *     EF.SOD and the data groups, each base64 of the file's bytes as read (outer tag included). Authenticated by the
         *     session's `client_secret` only; a tenant key is refused with 403 `insufficient_scope`, and another session's
         *     `client_secret` gets 404. Accepted for a T5 session in `created` or `in_progress` that holds no chip yet; any other
         *     tier or status, or a second submission, is 409 `invalid_state`.
         *
         *     The service runs ICAO 9303 Passive Authentication: the document signer's signature over EF.SOD, the chain from the
         *     document signer certificate to a trusted CSCA (imported from verified master lists), and the hash of every submitted
         *     data group. The outcome is stored in `result.chip` and as the `chip_passive_authentication` check, whose `reason` is
         *     exactly `Document is genuine and unmodified per ICAO 9303 Passive Authentication.` when all three verdicts succeed. Passive
         *     Authentication proves the chip data was signed by the issuing state's document signer and is unmodified; it does
         *     not consult any issuing state's records about the document or its holder.
         *
         *     DG1's MRZ and DG2's portrait are kept in the evidence vault. A T5 session is decided once, when both the hosted
         *     page's captures are submitted and the chip is stored, whichever comes last: if the captures are there, the
         *     session moves to `processing` and its checks run (document, face, liveness, anti-spoof, and the chip check,
         *     which also compares DG1 with the MRZ read from the document image and DG2's portrait with the selfie; a
         *     difference fails it with its reason, shown in `result.chip.cross_checks`). Otherwise the session is (or
         *     becomes) `in_progress` and waits for the captures. A test-mode session never opened in the hosted page keeps
         *     its 10-second clock; when it resolves, the submitted chip block and check replace the fixed test-mode ones,
         *     and a chip check that does not pass turns an `approved` test outcome into `declined`.
         *
         *     Failed verdicts are a 200 with the failure in the result. A body that is not a readable submission (bad base64,
         *     a truncated or random EF.SOD, data group numbers outside 1-16, no DG1) is a 400 `invalid_request` whose message
         *     names the field; a body over 1 MiB is a 413 `payload_too_large`. DG3 (fingerprints) and DG4 (iris images) are
         *     never collected: a submission with either is a 400 `data_group_not_allowed`, refused before anything of it is
         *     decoded, hashed or stored.
         *     Metered in the `default` rate-limit bucket.
         */
        post: operations["submitChip"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/tenants/{tenant_id}/retention": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the tenant's retention
         * @description The policy in force for the key's mode (test and live have their own). `updated_at` is null
         *     while the spec's defaults apply. Needs `retention:manage`. See docs/retention-and-audit.md.
         */
        get: operations["getRetention"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change the tenant's retention
         * @description A partial update: give one or more fields, each an integer within its range. A value out of
         *     range, not an integer, null, or an unknown field is a 400 whose message starts with the
         *     field's name. Tightening applies to new artifacts at once and to stored artifacts of
         *     sessions not yet completed within 24 hours (the nightly pass); loosening applies to future
         *     uploads only. 0 days: purged when the session completes. Audited.
         */
        patch: operations["updateRetention"];
        trace?: never;
    };
    "/v1/verify/sessions/{id}/retention": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Keep a session's ID documents longer (regulated tenants)
         * @description Regulated tenants only (an operator sets the flag): the session's ID document images, MRZ
         *     text and decision are kept for `id_document_years` (1-10) from when each was stored. Other
         *     tenants get 403 `not_regulated`. The reason is kept with the extension; the audit log holds
         *     its SHA-256. Needs `sessions:write`.
         */
        post: operations["extendSessionRetention"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/flows": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List flows
         * @description Every flow of the key's tenant, the default first. Flows belong to the tenant, not to a mode:
         *     a test key and a live key see the same ones. Needs `flows:manage`. See docs/api-behaviour.md, "Flows".
         */
        get: operations["listFlows"];
        put?: never;
        /**
         * Create a flow
         * @description A new flow of the key's tenant: the default flow's branding and allowed origins, then the fields
         *     given. `name` is required. Each value is judged as the console's Flows form judges it (one service
         *     for both): a bad one is 400 `invalid_request` whose message starts with the field's name, and nothing
         *     is stored. Needs `flows:manage`.
         */
        post: operations["createFlow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/flows/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a flow ("default" names the default flow)
         * @description Needs `flows:manage`.
         */
        get: operations["getFlow"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change a flow
         * @description A partial update: give one or more fields. `logo_url` and `redirect_url` take null to remove them;
         *     `allowed_origins` replaces the list (`[]` clears it). Each value is judged as the console's Flows form
         *     judges it: a bad one is 400 `invalid_request` whose message starts with the field's name, and nothing
         *     changes. Needs `flows:manage`.
         */
        patch: operations["updateFlow"];
        trace?: never;
    };
    "/v1/verify/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register a webhook endpoint
         * @description Needs the `webhooks:manage` scope. `signing_secret` is returned this once only; it signs every
         *     delivery (`Service-Signature: v1,t=<unix>,sig=<hex HMAC-SHA256 of "<t>.<raw body>">`).
         *     Live-mode URLs must be https and resolve only to public addresses; test mode also allows http
         *     and localhost. `GET /v1/developer/webhooks` lists the endpoints and `DELETE /v1/developer/webhooks/{id}` deletes
         *     one; disabling, enabling and rotating the secret are GraphQL mutations.
         */
        post: operations["createWebhookEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook endpoints
         * @description The endpoints of the key's tenant in the key's mode, newest first, without their secrets (deleted ones are
         *     gone). Needs `webhooks:manage`.
         */
        get: operations["listWebhookEndpoints"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a webhook endpoint
         * @description Nothing more is sent to the endpoint, retries of earlier deliveries included. Needs `webhooks:manage`;
         *     another tenant's or mode's endpoint, or one already deleted, is a 404.
         */
        delete: operations["deleteWebhookEndpoint"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/webhooks/{id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send events again to an endpoint
         * @description Re-sends to endpoint `{id}` the events named by `event_ids`, or those created in the
         *     `since`/`until` window (`since` inclusive, `until` exclusive, default now) that the endpoint
         *     receives. Each replay is a new delivery, signed afresh, with the same `Service-Event-Id`.
         *     At most 10,000 events per call. Needs `webhooks:manage`; another tenant's endpoint is a 404.
         */
        post: operations["replayWebhookEvents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/bulk-import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create up to 10,000 sessions from one upload
         * @description Needs a tenant key with `sessions:write`. The body is NDJSON (`application/x-ndjson`, one record per line;
         *     blank lines are skipped but counted) or JSON `{"records": [...]}` (a record's line is its position, from 1):
         *     1 to 10,000 records, at most 25 MiB. A record is the body of `POST /v1/verify/sessions` in either shape,
         *     plus an optional `email`, to which the service mails the session's hosted link. Answers 202 at once; a
         *     durable job creates the sessions in batches and survives a restart. A record whose `reference_id` already
         *     names a session of the tenant in this mode (or an earlier record of the file) is a duplicate, not a second
         *     session; a record that does not parse or is not a valid create body is rejected with its line and reason;
         *     the others go on. An empty body, a JSON body that does not parse, or more than 10,000 records is a 400.
         */
        post: operations["createBulkImport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/bulk-import/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a bulk import's progress
         * @description Needs a tenant key with `sessions:write`. Another tenant's import, or one of the other mode, is not found.
         */
        get: operations["getBulkImport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/bulk-import/{id}/results": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stream one result line per record
         * @description NDJSON, one BulkImportResult per record in line order, streamed from the database (never built whole). While
         *     the job runs, records not yet processed have `outcome: pending`. `url` (the hosted link) is given for sessions
         *     this import created; a duplicate names the session that already carried its `reference_id`.
         */
        get: operations["getBulkImportResults"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/dsr/initiate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A tenant asks, for one of its users, for the user's data; the user confirms by mail (sign-in required)
         * @description Needs a tenant key with the `dsr:manage` scope. `callback_url` follows the webhook address rules (https in live mode, no private or special addresses). Answers 202 `awaiting_confirmation` with `callback_signing_secret`, shown once: the result is POSTed to `callback_url` signed with it like a webhook (`Service-Signature`). Unconfirmed after 7 days the job is `denied` (`not_confirmed`). docs/data-rights.md, "Delegated requests".
         */
        post: operations["initiateDelegatedRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hosted/sessions/{id}/credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Open the page credential from the hosted URL's token
         * @description The page reads `token` from its own address and exchanges it for a credential it keeps in memory (never a
         *     cookie). The credential names this one session and lasts an hour; the page re-opens it from the token.
         *     A wrong token is a 404, like an unknown session. Opening it makes the page drive a test-mode session.
         */
        post: operations["openHostedPage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hosted/sessions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The session as the page sees it (status, steps, branding, captures so far) */
        get: operations["getHostedView"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hosted/sessions/{id}/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Consent given; the session becomes in_progress (idempotent) */
        post: operations["startHostedSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hosted/sessions/{id}/decline": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Consent declined; the session fails with the `consent` check failed */
        post: operations["declineHostedConsent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hosted/sessions/{id}/challenge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A randomised liveness challenge (T2 and up), replacing any earlier one
         * @description 2 or 3 distinct steps from turn_left, turn_right, look_up, smile, each with a nonce and a 4-second window (epoch ms, server clock).
         */
        post: operations["issueLivenessChallenge"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hosted/sessions/{id}/artifacts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload one capture into the evidence vault (whole or nothing)
         * @description The body is the raw bytes, streamed into the vault (encrypted as it arrives). The Content-Type must be one
         *     of image/jpeg, image/png, image/webp (documents, selfie, liveness frames) or video/webm, video/mp4 (liveness
         *     only), and the bytes must really be that type. Images up to 10 MiB, videos up to 25 MiB. A session holds at
         *     most 2 document images, 1 selfie and 60 liveness frames. Selfies and liveness frames come from the live camera.
         *     A video is recorded without sound: one with an audio track is refused (415 `audio_not_allowed`; the service
         *     never collects voice), as is one whose track list cannot be read (415 `unsupported_media_type`). A body that
         *     arrives more slowly than 16 KiB/s on average after its first 10 s (or stops) is cut with 408
         *     `upload_too_slow` and the connection closed. One tenant reads at most 8 bodies at once per instance and one
         *     session 2; the others wait their turn unread. Nothing of a refused upload is stored.
         */
        post: operations["uploadArtifact"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hosted/sessions/{id}/submit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Everything captured; the session goes to processing and its checks run (idempotent) */
        post: operations["submitHostedSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hosted/sessions/{id}/test-outcome": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A test session only; the outcome it resolves as on its own 10-second clock
         * @description The test page's buttons. A test session that is not decided yet (`created`, `in_progress` or `processing`) takes the outcome as its `metadata.test_outcome`; a `created` one becomes `in_progress`. It still resolves 10 s after creation, whatever the page does. A live session, or an outcome that is not one of the three (`error.fields` names `outcome`), is a 400; a session already decided a 409. The first choice also carries `keep_secret`, as a submit's answer does.
         */
        post: operations["chooseHostedTestOutcome"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hosted/sessions/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The end user stops; the session is withdrawn */
        post: operations["cancelHostedSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hosted/sessions/{id}/business": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * T4 business details (legal name and at least one identifier), checked before any registry is asked
         * @description `legal_name` (required, at most 255 characters): compared with each registry's record.
         *     `country`: ISO 3166-1 alpha-2; when given, that country's national register (GB: Companies
         *     House, AU: ABN Lookup, US: SEC EDGAR) must pass for the `business` badge.
         *     `lei`: ISO 17442, 20 characters, MOD 97-10 check digits. `uk_company_number`: 8 characters
         *     (8 digits, or a register prefix such as SC and 6 digits; shorter all-digit numbers are
         *     zero-padded to 8). `abn`: 11 digits with the ABN weighted checksum. `cik`: up to 10 digits,
         *     not all zeros (kept zero-padded to 10). Spaces and hyphens are ignored. Field error codes:
         *     `required`, `invalid_format`, `invalid_checksum`, `identifier_required`. A registry whose
         *     identifier is not given is `skipped` (docs/checks.md, "Business registries").
         */
        put: operations["putHostedBusinessDetails"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hosted/sessions/{id}/identity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * T3/T4 name and date of birth to screen, as printed on the document (sealed under the tenant's vault key)
         * @description Field error codes: `required` (surname, date_of_birth), `invalid_format` (names: letters,
         *     marks, spaces, `'`, `.`, `-`), `invalid_date` (not a real YYYY-MM-DD date), `out_of_range`
         *     (in the future or before 1900).
         */
        put: operations["putHostedIdentity"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hosted/sessions/{id}/app-handoff": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * T5, once the web steps are captured, the mobile app's deep link with a client_secret minted for it, and its QR code
         * @description Mints a client_secret for the session (same powers as the one returned on create; only its
         *     hash is kept, so a second call replaces the previous app secret). The link is
         *     `MOBILE_APP_LINK?session_id=...&client_secret=...` for a custom scheme, or
         *     `MOBILE_APP_LINK#session_id=...&client_secret=...` for an https universal link (a fragment is
         *     never sent to a server).
         */
        post: operations["postHostedAppHandoff"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hosted/sessions/{id}/digital-id/requests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * D24, an OpenID4VP request for a digital ID (mDL or EU PID), for the same device and for a wallet on another device
         * @description Builds an OpenID4VP 1.0 request with a DCQL query for the claims the session's tier needs and no
         *     more (docs/digital-ids.md), with a fresh nonce and response-encryption key bound to the session.
         *     `dc_api_requests` is passed to `navigator.credentials.get({ digital: { requests: dc_api_requests } })`
         *     and its answer sent to the `.../response` route below: with a verifier key configured the signed
         *     request (`openid4vp-v1-signed`, a JWS under the verifier certificate) first and the unsigned one after
         *     it, else the unsigned one alone (`request_signing` says which; docs/digital-ids.md, "Signed requests"); `cross_device.link` is the `openid4vp://` link a QR code
         *     carries, whose wallet answers at `/v1/digital-id/responses/{requestId}`. A request takes one answer
         *     within 10 minutes. Not offered when the flow switches digital IDs off (400).
         */
        post: operations["postHostedDigitalIdRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hosted/sessions/{id}/digital-id/requests/{requestId}/response": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** D24, the same device's answer (what navigator.credentials.get resolved with), verified at once */
        post: operations["postHostedDigitalIdResponse"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/digital-id/requests/{requestId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * D24, the request object a wallet fetches by reference (request_uri), while the request is open
         * @description A JWT holding the OpenID4VP request with `response_mode=direct_post.jwt` and the session's encryption key in `client_metadata.jwks`. Signed by the verifier key (`typ` oauth-authz-req+jwt, ES256/384/512, the certificate chain in `x5c`, client_id `x509_san_dns:` or `x509_hash:`) when one is configured; else unsigned (`alg` none, client_id `redirect_uri:<response URI>`, a prefix that forbids signing).
         */
        get: operations["getDigitalIdRequestObject"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/digital-id/responses/{requestId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * D24, the response endpoint of a cross-device request (response_mode direct_post.jwt)
         * @description Takes the wallet's answer as the form field `response`, a compact JWE (ECDH-ES, A128GCM or A256GCM)
         *     to the session's key, verifies it and answers how it fared. Nothing is stored from an answer that
         *     does not decrypt; a refused presentation is not kept, only the failed step.
         */
        post: operations["postDigitalIdResponse"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hosted/sessions/{id}/handoff.svg": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The hosted URL as an SVG QR code, to continue on another device */
        get: operations["hostedHandoffQr"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/evidence/{artifact_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Open a signed evidence link (from `result.evidence_urls`)
         * @description Valid 15 minutes from the read that produced it. The signature is the credential: no API key. Each open is
         *     written to the tenant's audit log. Only document images, the selfie and the liveness frames have links, never
         *     templates. An altered or expired link is 403 `link_invalid`; an artifact purged under retention is 410 `gone`.
         *     The session's user is checked when the link is opened: once they restricted processing the link is 409
         *     `user_restricted`, once they deleted their account 404 `not_found`, even within its 15 minutes.
         */
        get: operations["openEvidence"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness, database reachability and the sanctions lists in force */
        get: operations["health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness for traffic - database, migrations, job queue and (where this process runs them) the check engines
         * @description 503 until every dependency answers, and again from the moment a shutdown begins (`shutting_down`), so a load
         *     balancer stops sending work. `/healthz` stays the cheap liveness probe (docs/operations.md, "Probes").
         */
        get: operations["readiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics (text exposition format)
         * @description Served on this port only when METRICS_TOKEN is set and METRICS_PORT is not, behind `Authorization: Bearer
         *     <METRICS_TOKEN>`; otherwise 404 here. With METRICS_PORT it is served on that port alone, without a token.
         *     Every metric, its labels and example alert rules: docs/operations.md, "Metrics".
         */
        get: operations["metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.yaml": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document */
        get: operations["openapi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/oidc/.well-known/openid-configuration": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** OpenID Provider discovery (issuer `<PUBLIC_BASE_URL>/v1/oidc`) */
        get: operations["oidcDiscovery"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/oidc/jwks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The provider's public ES256 signing keys (during a rotation, old and new) */
        get: operations["oidcJwks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/oidc/auth": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Authorization endpoint (code flow, PKCE S256 required; `request_uri` from PAR or plain parameters)
         * @description Leads the browser through the sign-in, sign-up, email code and consent pages, then back to the client's `redirect_uri`.
         */
        get: operations["oidcAuthorize"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/oidc/interaction/{uid}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The sign-in or consent page of one interaction (HTML, en-US and de-DE) */
        get: operations["oidcInteraction"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/oidc/par": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Pushed authorization request (RFC 9126); metered per client in `auth_token` */
        post: operations["oidcPushedAuthorizationRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/oidc/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Token endpoint (authorization_code, refresh_token with rotation); metered per client in `auth_token`
         * @description With `resource=<PUBLIC_BASE_URL>/v1` the access token is a JWT for `/v1/me`; without it, an opaque token for
         *     userinfo. Client authentication: `client_secret_basic`, `client_secret_post`, or `private_key_jwt` (an
         *     assertion's `aud` may be the issuer or this endpoint).
         */
        post: operations["oidcToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/oauth2/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The same token endpoint at its documented alias */
        post: operations["oauth2Token"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/oidc/userinfo": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** UserInfo (opaque access token without a resource); metered per client in `auth_userinfo` */
        get: operations["oidcUserinfo"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/oidc/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Token revocation (RFC 7009); revoking a refresh token ends its grant */
        post: operations["oidcRevoke"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/oidc/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** RP-initiated logout; asks the user to confirm, then returns to a registered `post_logout_redirect_uri` */
        get: operations["oidcLogout"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/exports/{id}/bundle.zip": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Download an export bundle through its pre-signed link (valid 7 days); the link is the credential */
        get: operations["downloadExportBundle"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/social/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** GET /v1/social/..., proxied to the social upstream */
        get: operations["getSocial"];
        /** PUT /v1/social/..., proxied to the social upstream */
        put: operations["putSocial"];
        /** POST /v1/social/..., proxied to the social upstream */
        post: operations["postSocial"];
        /** DELETE /v1/social/..., proxied to the social upstream */
        delete: operations["deleteSocial"];
        options?: never;
        head?: never;
        /** PATCH /v1/social/..., proxied to the social upstream */
        patch: operations["patchSocial"];
        trace?: never;
    };
    "/v1/profiles/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** GET /v1/profiles/..., proxied to the social upstream */
        get: operations["getProfiles"];
        /** PUT /v1/profiles/..., proxied to the social upstream */
        put: operations["putProfiles"];
        /** POST /v1/profiles/..., proxied to the social upstream */
        post: operations["postProfiles"];
        /** DELETE /v1/profiles/..., proxied to the social upstream */
        delete: operations["deleteProfiles"];
        options?: never;
        head?: never;
        /** PATCH /v1/profiles/..., proxied to the social upstream */
        patch: operations["patchProfiles"];
        trace?: never;
    };
    "/v1/network/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** GET /v1/network/..., proxied to the social upstream */
        get: operations["getNetwork"];
        /** PUT /v1/network/..., proxied to the social upstream */
        put: operations["putNetwork"];
        /** POST /v1/network/..., proxied to the social upstream */
        post: operations["postNetwork"];
        /** DELETE /v1/network/..., proxied to the social upstream */
        delete: operations["deleteNetwork"];
        options?: never;
        head?: never;
        /** PATCH /v1/network/..., proxied to the social upstream */
        patch: operations["patchNetwork"];
        trace?: never;
    };
    "/v1/.well-known/gateway-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The JWKS whose ES256 key signs the Service-Actor header sent to the social upstream */
        get: operations["gatewaySigningKeys"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/.well-known/export-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The JWKS whose Ed25519 key signs every export manifest (`manifest.sig`) */
        get: operations["exportSigningKeys"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    verificationEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * What a registered endpoint receives
         * @description One POST per delivery attempt, with the raw JSON body signed as described in docs/webhooks.md. Answer 2xx within 10 s; anything else is retried (8 attempts over about 3 days,
         *     exponential back-off with full jitter, Retry-After honoured). 410 disables the endpoint.
         */
        post: operations["receiveVerificationEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        RateLimitProblem: {
            /** Format: uri */
            type: string;
            title: string;
            /** @constant */
            status: 429;
            detail: string;
            /** @enum {string} */
            bucket: "social_read" | "social_write" | "auth_token" | "auth_userinfo" | "verify_create" | "verify_admin" | "verify_read" | "webhooks_replay" | "bulk_import" | "default";
            retry_after: number;
        };
        /** @enum {string} */
        Tier: "T0" | "T1" | "T2" | "T3" | "T4" | "T5" | "T6";
        /** @enum {string} */
        SessionStatus: "created" | "in_progress" | "processing" | "success" | "failed" | "manual_review" | "expired" | "withdrawn";
        SessionDecision: {
            id: string;
            session_id: string;
            /**
             * @description A person approves, declines or reverses; the pipeline approves, declines or sends to review.
             * @enum {string}
             */
            decision: "approve" | "decline" | "reverse" | "review";
            reason: string | null;
            reviewer_id: string | null;
            /** @enum {string} */
            source: "automated" | "human";
            /**
             * @description A human decision asked for by the tenant (API, console) or by the end user's review request.
             * @enum {string}
             */
            requested_by?: "tenant" | "end_user";
            from_status: string;
            to_status: string;
            /** @description Automated decisions only. */
            policy_version?: string;
            /** @description Automated decisions only; the checks the policy read. */
            checks?: {
                name: string;
                /** @enum {string} */
                status: "pass" | "fail" | "skipped" | "error";
                score?: number;
                reason?: string;
            }[];
            /** Format: date-time */
            decided_at: string;
        };
        Session: {
            id: string;
            /**
             * Format: uri
             * @description Where to send the end user. The create answer carries it, and so does every read with a tenant key (one session, the list) while the session is `created` or `in_progress`, with a token minted for that answer, so the link can be sent again. It is null once the session has moved on, and always null for a client_secret. Every link given stops working an hour after the session's terminal status.
             */
            hosted_url: string | null;
            status: components["schemas"]["SessionStatus"];
            tier: components["schemas"]["Tier"];
            reference_id: string | null;
            /** @description Present when the session is bound to a user; this tenant's subject of that user. */
            user_sub?: string;
            result: components["schemas"]["Result"] | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            completed_at: string | null;
            /** Format: date-time */
            expires_at: string;
            livemode: boolean;
            flow_id: string;
            /** Format: uri */
            redirect_url: string | null;
            locale: string;
            metadata: {
                [key: string]: unknown;
            };
        };
        CreatedSession: components["schemas"]["Session"] & {
            /** @description Lets a browser read and subscribe to this one session. Returned here only. */
            client_secret: string;
        };
        Result: {
            /** @enum {string} */
            decision: "approved" | "declined" | "review";
            achieved_tier: components["schemas"]["Tier"];
            confidence: number;
            checks: components["schemas"]["Check"][];
            evidence_urls: string[];
            badges: string[];
            signals: {
                source: string;
                score: number;
            }[];
            /** @description T3 and T4 only. */
            sanctions_hits?: components["schemas"]["SanctionsHit"][];
            chip?: components["schemas"]["ChipResult"];
        };
        ChipVerdict: {
            /** @enum {string} */
            status: "succeeded" | "failed" | "not_checked";
            /**
             * @description Why the verdict did not succeed, a stable code: malformed_sod, unsupported_algorithm, message_digest_mismatch,
             *     content_type_mismatch, ds_certificate_not_found, signature_invalid, no_csca_trust_anchor, could_not_build_chain,
             *     ds_certificate_not_valid_at_signing_time, csca_not_valid_at_signing_time, hash_mismatch, data_group_not_in_sod,
             *     no_data_groups.
             */
            reason?: string;
        };
        /**
         * @description T5 only: the ICAO 9303 Passive Authentication result, with the three verdicts reported separately. It shows the chip
         *     data was signed by a trusted document signer and is unmodified; it does not consult any issuing state's records.
         *     Test-mode sessions that received no chip submission carry a fixed block with `test_mode: true`.
         */
        ChipResult: {
            ds_signature: components["schemas"]["ChipVerdict"];
            chain: components["schemas"]["ChipVerdict"];
            data_group_hashes: components["schemas"]["ChipVerdict"];
            data_groups: {
                number: number;
                /** @description Hash signed in EF.SOD, lower-case hex. */
                stored_hash: string | null;
                /** @description Hash of the submitted data group, lower-case hex. */
                computed_hash: string | null;
                /** @enum {string} */
                status: "match" | "mismatch" | "not_in_sod" | "not_submitted";
            }[];
            /** @description Submitted data groups EF.SOD has no hash for; their content is not authenticated. */
            uncovered_data_groups: number[];
            /** @description From DG1's MRZ when DG1 matched its signed hash; the document number is masked, and no name or birth date is kept. */
            document?: null | ({
                issuing_state: string;
                document_type: string;
                /** Format: date */
                expiry_date: string | null;
                /** @description Masked, e.g. `*******C3`. */
                document_number: string;
                /** @description True only when all three verdicts succeeded. */
                authenticated?: boolean;
            } & {
                [key: string]: unknown;
            });
            /**
             * @description What Passive Authentication proved, in the specification's permitted wording, exactly: set when all three
             *     verdicts succeeded, null otherwise. It says nothing of the issuing state's records, and the comparisons with
             *     the page's captures are reported apart (`cross_checks`).
             * @enum {string|null}
             */
            statement?: "Document is genuine and unmodified per ICAO 9303 Passive Authentication." | null;
            /**
             * @description Set when the session is decided: the chip compared with the hosted page's captures. `mrz`: DG1 against the MRZ
             *     read from the document image (`not_checked` when no MRZ was read or DG1 is not authentic). `portrait`: DG2's
             *     portrait against the selfie, through the face matcher. Reasons name fields, never their values.
             */
            cross_checks?: {
                mrz: components["schemas"]["ChipCrossCheck"];
                portrait: components["schemas"]["ChipCrossCheck"];
            };
            signature_algorithm?: string;
            /** Format: date-time */
            signing_time?: string | null;
            /** Format: date-time */
            validated_at?: string;
            test_mode?: boolean;
        } & {
            [key: string]: unknown;
        };
        ChipCrossCheck: {
            /** @enum {string} */
            status: "match" | "mismatch" | "not_checked" | "error";
            reason: string;
            /** @description The face matcher's similarity (portrait only). */
            score?: number;
            /** @description The face matcher's own verdict (portrait only). */
            verdict?: string;
        };
        Check: {
            name: string;
            /** @enum {string} */
            status: "pass" | "fail" | "skipped" | "error";
            score?: number;
            reason?: string;
            /**
             * @description The engine's own verdict (additive); `status` shows `review` as `fail` and `unknown` as `error`.
             * @enum {string}
             */
            verdict?: "pass" | "fail" | "review" | "unknown" | "error" | "skipped";
            /** @description What the check read. For the T4 registry checks, `record` is the normalized registry record (docs/checks.md, "Business registries"). */
            details?: Record<string, never>;
        };
        SanctionsHit: {
            /** @enum {string} */
            list: "ofac" | "eu" | "uk" | "un" | "au";
            /** @description The record key within the list version (UN DATAID, EU logical id, OFAC uid, UK unique id, DFAT reference). */
            entry_id: string;
            /**
             * @description The list's own reference, the one a compliance officer looks up in the list's publication:
             *     the UN permanent reference (`CDi.008`), OFAC's entry number, the EU reference (`EU.3579.2`; the
             *     logical id for entries without one), the UK unique id (`RUS0001`), the DFAT reference number.
             */
            reference: string;
            programme: string;
            subject_type: string;
            matched_name: string;
            score: number;
            list_version: string;
            reasons: {
                feature: string;
                score: number;
                detail: string;
            }[];
        };
        SessionList: {
            /** @enum {string} */
            object: "list";
            data: components["schemas"]["Session"][];
            has_more: boolean;
            /** @description Pass as `after` for the next page; null on the last page. */
            next_cursor: string | null;
        };
        WebhookEndpoint: {
            id: string;
            url: string;
            events: string[];
            livemode: boolean;
            /** @enum {string} */
            status: "enabled" | "disabled";
            /** @description disabled_by_tenant, receiver_gone (410) or failing_for_3_days. */
            disabled_reason: string | null;
            /**
             * Format: date-time
             * @description Start of the current run of failed attempts.
             */
            failing_since: string | null;
            /** Format: date-time */
            created_at: string;
        };
        CreatedWebhookEndpoint: {
            id: string;
            url: string;
            events: string[];
            /** @description Shown this once. The HMAC key is this whole string, prefix included. */
            signing_secret: string;
            /** Format: date-time */
            created_at: string;
            livemode?: boolean;
        };
        /**
         * @description The body of every webhook delivery (docs/api-behaviour.md, "Webhooks and events"). Verify the signature over the raw bytes
         *     before parsing. `verification.*` data is shown; `user.*` and `biometric.purged` events use the
         *     same envelope with their own `data`. Every terminal transition sends exactly one `verification.*` event (D22):
         *     `success` -> `verification.completed`; `failed`, `withdrawn` and `expired` -> `verification.failed` with
         *     `data.status` naming which; `manual_review` -> `verification.manual_review`. A session withdrawn or expired
         *     before its checks ran has `tier`, `decision`, `confidence` and `completed_at` null and no badges.
         */
        WebhookEvent: {
            id: string;
            type: string;
            /** Format: date-time */
            created_at: string;
            livemode: boolean;
            data: {
                session_id?: string;
                reference?: string | null;
                tier?: string | null;
                requested_tier?: string;
                /** @enum {string} */
                status?: "success" | "failed" | "manual_review" | "withdrawn" | "expired";
                decision?: string | null;
                badges?: string[];
                confidence?: number | null;
                /** Format: date-time */
                completed_at?: string | null;
                /** @description T3 and T4 sessions only, as in the session's `result.sanctions_hits`. */
                sanctions_hits?: components["schemas"]["SanctionsHit"][];
            };
        };
        DigitalIdRequest: {
            id: string;
            /** Format: date-time */
            expires_at: string;
            dc_api: components["schemas"]["DigitalIdDcApiRequest"];
            /** @description The requests given to navigator.credentials.get (its `digital.requests`): the signed one first when the service signs, then the unsigned one, then ISO/IEC TS 18013-7 Annex C (`org-iso-mdoc`, mdocs only); `dc_api` is the first */
            dc_api_requests: components["schemas"]["DigitalIdDcApiRequest"][];
            /**
             * @description The client identifier prefix of the verifier certificate that signs the requests, or `unsigned` when no verifier key is configured
             * @enum {string}
             */
            request_signing: "x509_san_dns" | "x509_hash" | "unsigned";
            cross_device: {
                /** @description The `openid4vp://` link a QR code carries (client_id and request_uri) */
                link: string;
                request_uri: string;
                /** @description An SVG QR code of `link` */
                qr_svg: string;
            };
        };
        /** @description One entry of the requests given to navigator.credentials.get (its `digital.requests`) */
        DigitalIdDcApiRequest: {
            /** @enum {string} */
            protocol: "openid4vp-v1-signed" | "openid4vp-v1-unsigned" | "org-iso-mdoc";
            /** @description Unsigned: the OpenID4VP request (response_type vp_token, response_mode dc_api, nonce, dcql_query, client_metadata). Signed: `{ request }`, the same request with client_id and expected_origins as a JWS (typ oauth-authz-req+jwt, x5c). `org-iso-mdoc` (ISO/IEC TS 18013-7 Annex C, mdocs only): `{ deviceRequest, encryptionInfo }`, both base64url CBOR */
            data: Record<string, never>;
        };
        DigitalIdStatus: {
            request_id: string;
            /** @enum {string} */
            status: "pending" | "verified" | "failed" | "error";
            /** @description The failed step (e.g. digest_mismatch, nonce_mismatch, untrusted_issuer, credential_revoked, status_unavailable) */
            reason: string | null;
        };
        HostedView: {
            session_id: string;
            status: components["schemas"]["SessionStatus"];
            tier: string;
            livemode: boolean;
            locale: string;
            steps: ("consent" | "document" | "selfie" | "liveness" | "confirm_identity" | "business" | "mobile_handoff")[];
            branding: {
                display_name: string;
                logo_url: string | null;
                primary_color: string;
            };
            redirect_url: string | null;
            allowed_origins: string[];
            captured: {
                id_document_image: number;
                selfie_image: number;
                selfie_video: number;
            };
            challenge: null | components["schemas"]["LivenessChallenge"];
            submitted: boolean;
            /** @description The server's clock, epoch ms */
            server_time: number;
            /**
             * @description A test session's outcome as it stands (`metadata.test_outcome`, `approved` when unset); null for a live session.
             * @enum {string|null}
             */
            test_outcome: "approved" | "declined" | "review" | null;
            /** @description D24, whether the page offers "Use a digital ID", and how the latest request fared */
            digital_id: {
                offered: boolean;
                latest: null | components["schemas"]["DigitalIdStatus"];
            };
        };
        LivenessChallenge: {
            id: string;
            issued_at: number;
            steps: {
                /** @enum {string} */
                action: "turn_left" | "turn_right" | "look_up" | "smile";
                nonce: string;
                opens_at: number;
                closes_at: number;
            }[];
        };
        StoredArtifact: {
            id: string;
            class: string;
            content_type: string;
            size: number;
            sha256: string;
            /** Format: date-time */
            stored_at: string;
        };
        /** @description What the user's bound live sessions established (badges added, highest tier kept); test-mode sessions never change it. */
        ServiceVerification: {
            badges: string[];
            tier: components["schemas"]["Tier"] | null;
            /** Format: date-time */
            verified_at: string | null;
        };
        TokenResponse: {
            access_token: string;
            token_type: string;
            expires_in: number;
            id_token?: string;
            refresh_token?: string;
            scope?: string;
        };
        /** @description What the token is shown of the account (docs/accounts-and-oidc.md, "What a token is shown"). A tenant's client sees the user by its pairwise `sub` only, and a claim only with the scope that grants it: `email` and `email_verified` with `email`, `profile` with `profile`, `service_verification` with `verification`. `id`, `verified` and `created_at` are the account portal's only (they would let two tenants link the same person). */
        Me: {
            /** @description The token's subject, the tenant's pairwise subject of the user (the account portal's own for the portal). */
            sub: string;
            /** @description The account portal only. */
            id?: string;
            /** @description With scope `email`. */
            email?: string;
            /** @description With scope `email`. */
            email_verified?: boolean;
            /** @description With scope `profile`. */
            profile?: {
                display_name: string | null;
                handle: string | null;
                public_links: string[];
                bio: string | null;
            };
            /** @description Set only by verifications. The account portal only. */
            verified?: {
                legal_name: string | null;
                date_of_birth: string | null;
                nationality: string | null;
            };
            /** @description With scope `verification`. */
            service_verification?: components["schemas"]["ServiceVerification"];
            /** @enum {string} */
            state: "active" | "restricted" | "soft_deleted" | "purged";
            /**
             * Format: date-time
             * @description The account portal only.
             */
            created_at?: string;
            sessions: {
                id: string;
                status: components["schemas"]["SessionStatus"];
                tier: components["schemas"]["Tier"];
                livemode: boolean;
                /** Format: date-time */
                created_at: string;
                /** Format: date-time */
                completed_at: string | null;
            }[];
        };
        /** @description A verification flow template (docs/api-behaviour.md, "Flows"). It belongs to its tenant in both modes. */
        Flow: {
            id: string;
            /** @enum {string} */
            object: "flow";
            name: string;
            /** @description The default flow, which `flow_id` `default` names. */
            is_default: boolean;
            /** @enum {string} */
            max_tier: "T0" | "T1" | "T2" | "T3" | "T4" | "T5";
            display_name: string;
            logo_url: string | null;
            primary_color: string;
            locale: string;
            redirect_url: string | null;
            allowed_origins: string[];
            /** @description Whether the hosted page offers "Use a digital ID" (a mobile driving licence or EU PID from a wallet, docs/digital-ids.md). On unless switched off. */
            digital_id: boolean;
            /** Format: date-time */
            created_at: string;
        };
        Retention: {
            tenant_id: string;
            livemode: boolean;
            biometric_template_days: number;
            selfie_image_days: number;
            selfie_video_days: number;
            id_document_years: number;
            /** Format: date-time */
            updated_at: string | null;
        };
        ErrorBody: {
            error: {
                /** @enum {string} */
                code: "invalid_request" | "too_many_records" | "tier_not_available" | "data_group_not_allowed" | "unauthorized" | "user_token_required" | "insufficient_scope" | "reauthentication_required" | "not_regulated" | "not_found" | "link_invalid" | "gone" | "invalid_state" | "user_restricted" | "payload_too_large" | "unsupported_media_type" | "audio_not_allowed" | "upload_too_slow" | "internal_error" | "upstream_unreachable" | "upstream_not_configured" | "upstream_timeout";
                message: string;
                request_id?: string;
                /** @description Present on form validation errors (the hosted page's steps); one entry per field at fault. */
                fields?: {
                    field: string;
                    code: string;
                    message: string;
                }[];
            };
        };
        HostedBusinessDetails: {
            legal_name?: string;
            country?: string;
            lei?: string;
            uk_company_number?: string;
            abn?: string;
            cik?: string;
        };
        Readiness: {
            /** @enum {string} */
            status: "ready" | "not_ready";
            /** @description Per part (`database`, `migrations`, `job_queue`, `check_engines`, `shutting_down`), `ready` or a code: `unavailable`, `timeout`, `migrations_pending`, `failed`, `shutting_down`. */
            checks: {
                [key: string]: string;
            };
            /** @description Per part that is not ready, a short reason of the service's own (never a driver's error text). */
            reasons: {
                [key: string]: string;
            };
            not_ready: string[];
        };
        Health: {
            /** @enum {string} */
            status: "ok" | "degraded";
            /** @enum {string} */
            database: "up" | "down";
            /** @description The engine of each live check (CHECK_*_ENGINE; `off` means switched off on purpose, its check is `error`) and whether the offline models are loaded (they load on the first live check; `in_workers` on an API instance started with WORKER_ENABLED=false, whose live sessions the `npm run worker` processes decide). */
            check_engines?: {
                document: components["schemas"]["CheckEngine"];
                face_match: components["schemas"]["CheckEngine"];
                liveness: components["schemas"]["CheckEngine"];
                anti_spoof: components["schemas"]["CheckEngine"];
                /** @enum {string} */
                embedded_models: "none" | "idle" | "loading" | "ready" | "failed" | "in_workers";
                embedded_workers?: number;
            };
            /** @description Each sanctions list's version in force and its age, as of the instance's last poll (docs/sanctions.md). A list never loaded has nulls; `source` is the origin of the address the list is downloaded from (never its credentials, path or query), or `off`. */
            sanctions_lists: {
                ofac: components["schemas"]["SanctionsListHealth"];
                eu: components["schemas"]["SanctionsListHealth"];
                uk: components["schemas"]["SanctionsListHealth"];
                un: components["schemas"]["SanctionsListHealth"];
                au: components["schemas"]["SanctionsListHealth"];
            };
            /** @description The T4 business registries (docs/checks.md, "Business registries"): the origin of each one called (never its credentials, path or query), or why it is switched off (no credential, or its URL set to `off`); a switched-off registry's check is `error` with that reason. */
            business_registries?: {
                gleif: components["schemas"]["RegistryHealth"];
                sec_edgar: components["schemas"]["RegistryHealth"];
                uk_ch: components["schemas"]["RegistryHealth"];
                au_abr: components["schemas"]["RegistryHealth"];
            };
        };
        RegistryHealth: {
            enabled: boolean;
            url?: string;
            reason?: string;
        };
        /** @enum {string} */
        CheckEngine: "embedded" | "aws" | "off";
        SanctionsListHealth: {
            /** @example un-2026-02-27-3f2a9c1d */
            version: string | null;
            /**
             * Format: date-time
             * @description When this version was loaded, or last confirmed current by a download of the same content.
             */
            loaded_at: string | null;
            age_seconds: number | null;
            /**
             * @example https://scsanctions.un.org/resources/xml/en/consolidated.xml
             * @example off
             */
            source: string;
        };
        ReviewCase: {
            id: string;
            verification_id: string;
            /** @enum {string} */
            status: "open" | "decided";
            /** @enum {string|null} */
            decision: "upheld" | "approved" | "declined" | null;
            /** Format: date-time */
            requested_at: string;
            /** Format: date-time */
            decided_at: string | null;
            dsr_job_id: string;
        };
        /** @description The profile as the token is shown it (the rule of `Me`): a tenant's client sees its pairwise `sub`, the self-managed fields (`display_name`, `handle`, `public_links`, `bio`) with scope `profile`, and `state`; `id`, the verified fields, `objections` and `pending_changes` are the account portal's only. */
        MyProfile: {
            /** @description The token's subject (the tenant's pairwise subject of the user). */
            sub: string;
            /** @description The account portal only. */
            id?: string;
            display_name?: string | null;
            handle?: string | null;
            public_links?: string[];
            bio?: string | null;
            legal_name?: string | null;
            date_of_birth?: string | null;
            nationality?: string | null;
            /** @enum {string} */
            state: "active" | "restricted";
            objections?: {
                processing: string;
                /** Format: date-time */
                objected_at: string;
            }[];
            pending_changes?: {
                id: string;
                /** @enum {string} */
                field: "legal_name" | "date_of_birth" | "nationality";
                value: string;
                /** Format: date-time */
                requested_at: string;
                dsr_job_id: string;
            }[];
        };
        /** @description RFC 9457 problem document of a tenant read of a restricted user's session. */
        UserRestrictedProblem: {
            /** Format: uri */
            type: string;
            title: string;
            /** @constant */
            status: 409;
            detail: string;
            /** @constant */
            code: "user_restricted";
            request_id?: string;
        };
        /** @description The body of POST /v1/verify/sessions in either shape (each field as in CreateSessionRequest) plus an optional `email`. */
        BulkImportRecord: {
            flow_id?: components["schemas"]["CreateSessionRequest"]["flow_id"];
            tier?: components["schemas"]["CreateSessionRequest"]["tier"];
            reference_id?: components["schemas"]["CreateSessionRequest"]["reference_id"];
            redirect_url?: components["schemas"]["CreateSessionRequest"]["redirect_url"];
            locale?: components["schemas"]["CreateSessionRequest"]["locale"];
            metadata?: components["schemas"]["CreateSessionRequest"]["metadata"];
            tiers?: components["schemas"]["CreateSessionRequest"]["tiers"];
            reference?: components["schemas"]["CreateSessionRequest"]["reference"];
            user_sub?: components["schemas"]["CreateSessionRequest"]["user_sub"];
            /**
             * Format: email
             * @description The person's address; the service mails them the hosted link (the mail outbox, docs/accounts-and-oidc.md).
             */
            email?: string | null;
        } | unknown | unknown;
        BulkImport: {
            id: string;
            /** @constant */
            object: "bulk_import";
            livemode: boolean;
            /** @enum {string} */
            status: "queued" | "processing" | "completed";
            total: number;
            created: number;
            duplicates: number;
            rejected: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            completed_at: string | null;
        };
        BulkImportResult: {
            line: number;
            reference_id: string | null;
            /** @enum {string} */
            outcome: "pending" | "created" | "duplicate" | "rejected";
            /** @description The session created; for a duplicate, the session that already carried the reference_id. */
            session_id?: string;
            /**
             * Format: uri
             * @description The hosted link of a session this import created.
             */
            url?: string;
            error?: {
                /** @description `invalid_request`, `tier_not_available`, `user_restricted`, ... as for a single create; `duplicate` for a duplicate. */
                code: string;
                message: string;
            };
        };
        /** @description A data-subject request (docs/data-rights.md, "DSR jobs"). */
        DsrJob: {
            id: string;
            /** @constant */
            object: "dsr_job";
            /** @enum {string} */
            kind: "export" | "rectification" | "erasure" | "restriction" | "objection" | "review" | "biometric_purge";
            /** @enum {string} */
            status: "awaiting_confirmation" | "received" | "in_progress" | "completed" | "denied" | "failed";
            reason: string | null;
            delegated: boolean;
            /** Format: date-time */
            received_at: string;
            /** Format: date-time */
            acknowledge_by: string;
            /** Format: date-time */
            expected_by: string;
            /** Format: date-time */
            confirm_by: string | null;
            /** Format: date-time */
            completed_at: string | null;
            /**
             * @description Restriction requests: what this one did.
             * @enum {string}
             */
            action?: "restrict" | "lift";
        };
        /** @description Either the definition shape (flow_id and tier required) or the quickstart shape (tiers). */
        CreateSessionRequest: {
            flow_id?: string;
            /** @enum {string} */
            tier?: "T0" | "T1" | "T2" | "T3" | "T4" | "T5" | "T6";
            /** @description The quickstart shape: its highest tier is the tier. */
            tiers?: ("T0" | "T1" | "T2" | "T3" | "T4" | "T5" | "T6")[];
            reference_id?: string | null;
            /** @description The quickstart shape: reference_id. */
            reference?: string | null;
            redirect_url?: string | null;
            locale?: string | null;
            metadata?: {
                [key: string]: unknown;
            } | null;
            user_sub?: string | null;
        };
        ManualReviewRequest: {
            /** @enum {string} */
            decision: "approve" | "reject";
            reason: string;
            reviewer_id?: string | null;
        };
        DecisionRequest: {
            /** @enum {string} */
            decision: "approve" | "decline" | "reverse";
            reason: string;
            reviewer_id?: string | null;
            reverses?: string | null;
        };
        ChipSubmission: {
            /** @description The Document Security Object, base64 */
            sod: string;
            /** @description Data groups by number ("1", "2", ...), base64; DG1 is required */
            data_groups: {
                [key: string]: string;
            };
        };
        RetentionPatch: {
            biometric_template_days?: number;
            selfie_image_days?: number;
            selfie_video_days?: number;
            id_document_years?: number;
        };
        FlowPatch: {
            name?: string;
            max_tier?: string;
            display_name?: string;
            /** @description https URL of the logo; null removes it */
            logo_url?: string | null;
            primary_color?: string;
            locale?: string;
            /** @description http(s) URL the page returns to; null removes it */
            redirect_url?: string | null;
            allowed_origins?: string[];
            /** @description Whether the hosted page offers "Use a digital ID"; false hides it and refuses the page's digital-ID requests. */
            digital_id?: boolean;
        };
        CreateWebhookRequest: {
            url: string;
            events: string[];
        };
        /** @description Either event_ids or a since/until window. */
        ReplayRequest: {
            event_ids?: string[] | null;
            since?: string | null;
            until?: string | null;
        };
    };
    responses: {
        /**
         * @description Refused before anything went upstream (`invalid_request`): a request whose framing is ambiguous
         *     (Transfer-Encoding with Content-Length, Transfer-Encoding other than one `chunked`, a body on GET,
         *     HEAD, DELETE or OPTIONS, a Connection header naming a header such as Content-Length, Host or
         *     Authorization; the connection is then closed), or a path that leaves its prefix once normalised
         *     (docs/gateway.md).
         */
        GatewayRequestRefused: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The social upstream could not be reached (`upstream_unreachable`) */
        UpstreamUnreachable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description This service has no social upstream (`upstream_not_configured`) */
        UpstreamNotConfigured: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The social upstream did not answer within 10 s (`upstream_timeout`) */
        UpstreamTimeout: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /**
         * @description The request's bucket is exhausted for this key (or client, or IP for a missing or invalid credential).
         *     An RFC 9457 problem document; wait `retry-after` seconds, then retry with exponential back-off and full jitter.
         */
        TooManyRequests: {
            headers: {
                "retry-after": components["headers"]["RetryAfter"];
                "ratelimit-limit": components["headers"]["RateLimitLimit"];
                "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                "ratelimit-reset": components["headers"]["RateLimitReset"];
                "service-debug-bucket-state": components["headers"]["ServiceDebugBucketState"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["RateLimitProblem"];
            };
        };
        /** @description Invalid request (`invalid_request`: malformed JSON, or a field, parameter or query value the operation refuses), or, creating a session, a tier not available (`tier_not_available`) */
        BadRequest: {
            headers: {
                "ratelimit-limit": components["headers"]["RateLimitLimit"];
                "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                "ratelimit-reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description Missing or invalid credential (`unauthorized`) */
        Unauthorized: {
            headers: {
                "ratelimit-limit": components["headers"]["RateLimitLimit"];
                "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                "ratelimit-reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The credential lacks a scope, or is a session client_secret (`insufficient_scope`) */
        Forbidden: {
            headers: {
                "ratelimit-limit": components["headers"]["RateLimitLimit"];
                "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                "ratelimit-reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description No such session for this credential (`not_found`) */
        NotFound: {
            headers: {
                "ratelimit-limit": components["headers"]["RateLimitLimit"];
                "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                "ratelimit-reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The session's status does not allow this (`invalid_state`) */
        Conflict: {
            headers: {
                "ratelimit-limit": components["headers"]["RateLimitLimit"];
                "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                "ratelimit-reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The body is over 1 MiB (`payload_too_large`) */
        PayloadTooLarge: {
            headers: {
                "ratelimit-limit": components["headers"]["RateLimitLimit"];
                "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                "ratelimit-reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The body is not application/json (`unsupported_media_type`) */
        UnsupportedMediaType: {
            headers: {
                "ratelimit-limit": components["headers"]["RateLimitLimit"];
                "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                "ratelimit-reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /**
         * @description A tenant API key or a session client_secret (`user_token_required`); a user token without the scope this
         *     endpoint needs (`insufficient_scope`: `account`, `account:write`, or `data_rights`, which only the account
         *     portal is granted); for export and erasure, a sign-in older than 10 minutes (`reauthentication_required`:
         *     sign in again with `max_age=600`). docs/accounts-and-oidc.md, "What a user token may do (D20)".
         */
        UserTokenForbidden: {
            headers: {
                /** @description On a user token: `Bearer error="insufficient_scope", error_description="...", scope="<needed>"` (RFC 6750), or `Bearer error="insufficient_user_authentication", error_description="...", max_age=600` (RFC 9470). */
                "WWW-Authenticate"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The session belongs to a user who restricted processing of their data (`user_restricted`, problem document) */
        UserRestricted: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["UserRestrictedProblem"];
            };
        };
    };
    parameters: {
        SessionId: string;
        /** @example bimp_4Jt0vQ9cXr2LmP8sKz6wYb1N */
        BulkImportId: string;
        /** @description Any path below the prefix, with its query. The upstream gets it normalised (dot-segments resolved, escapes of unreserved characters decoded); a path that leaves the prefix, or holds an escaped slash or backslash, is refused with 400 (docs/gateway.md). */
        GatewayPath: string;
    };
    requestBodies: never;
    headers: {
        /** @description Requests allowed in the sliding 60 s window of this request's bucket (see x-rate-limit-bucket). */
        RateLimitLimit: number;
        /** @description Requests left in the window. Exact for this instance's own requests; requests admitted by other instances show up at its next store charge (about 100 ms of traffic later). */
        RateLimitRemaining: number;
        /** @description Whole seconds until one more request would pass (0 while some remain); never a timestamp. */
        RateLimitReset: number;
        /** @description Whole seconds to wait before retrying. Authoritative; do not parse the body for timing. */
        RetryAfter: number;
        /** @description Test-mode 429s only: `bucket=<name>, limit=<n>, used=<n>, window_s=60, reset_s=<n>`. */
        ServiceDebugBucketState: string;
        /** @description Identifies the request; repeated in error bodies. */
        RequestId: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The account */
            200: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Me"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["UserTokenForbidden"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The erasure request (a DSR job, `in_progress` until the hard purge) */
            202: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DsrJob"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["UserTokenForbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    restrictMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The restriction request (completed) */
            202: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DsrJob"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["UserTokenForbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    liftMyRestriction: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The lifting request (completed; `details.action` is `lift`) */
            202: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DsrJob"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["UserTokenForbidden"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    objectToProcessing: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    processing: "feed_ranking";
                };
            };
        };
        responses: {
            /** @description The objection request */
            202: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DsrJob"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["UserTokenForbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    purgeMyBiometrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The biometric purge request */
            202: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DsrJob"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["UserTokenForbidden"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getVerificationReviews: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The cases, newest first */
            200: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ReviewCase"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["UserTokenForbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    requestVerificationReview: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    reason: string;
                };
            };
        };
        responses: {
            /** @description The review request and its case */
            202: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DsrJob"] & {
                        review_case: components["schemas"]["ReviewCase"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["UserTokenForbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getMyProfile: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The profile */
            200: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MyProfile"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["UserTokenForbidden"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    updateMyProfile: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    display_name?: string | null;
                    handle?: string | null;
                    public_links?: string[];
                    bio?: string | null;
                    legal_name?: string;
                    /** Format: date */
                    date_of_birth?: string;
                    nationality?: string;
                };
            };
        };
        responses: {
            /** @description The profile with what is pending */
            200: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MyProfile"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["UserTokenForbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listMyRequests: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The requests */
            200: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "list";
                        data: components["schemas"]["DsrJob"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["UserTokenForbidden"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    requestDataExport: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request (a DSR job) */
            202: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DsrJob"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["UserTokenForbidden"];
            /** @description The account is being deleted (`invalid_state`) */
            409: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    confirmDelegatedRequest: {
        parameters: {
            query: {
                token: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request (a DSR job) */
            200: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DsrJob"];
                };
            };
            /** @description A missing or wrong confirmation token (`invalid_request`) */
            400: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["UserTokenForbidden"];
            404: components["responses"]["NotFound"];
            /** @description Not awaiting confirmation any more (`invalid_state`) */
            409: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listSessions: {
        parameters: {
            query?: {
                /** @description Sessions per page (default 20). */
                limit?: number;
                /** @description The `next_cursor` of the previous page. */
                after?: string;
                status?: "created" | "in_progress" | "processing" | "success" | "failed" | "manual_review" | "expired" | "withdrawn";
                reference_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of sessions, newest first */
            200: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateSessionRequest"];
            };
        };
        responses: {
            /** @description Created; the answer alone carries the client_secret */
            201: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedSession"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    cancelSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The cancelled session */
            200: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session */
            200: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    reviewSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ManualReviewRequest"];
            };
        };
        responses: {
            /** @description The decided session */
            200: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listSessionDecisions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The decision history, oldest first */
            200: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "list";
                        data: components["schemas"]["SessionDecision"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    decideSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DecisionRequest"];
            };
        };
        responses: {
            /** @description The decision */
            201: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionDecision"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    submitChip: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ChipSubmission"];
            };
        };
        responses: {
            /** @description The session, its chip check done */
            200: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getRetention: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The calling key's own tenant; any other id is a 404. */
                tenant_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tenant's retention in the key's mode */
            200: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Retention"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    updateRetention: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The calling key's own tenant; any other id is a 404. */
                tenant_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RetentionPatch"];
            };
        };
        responses: {
            /** @description The retention as changed */
            200: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Retention"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    extendSessionRetention: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    id_document_years: number;
                    reason: string;
                };
            };
        };
        responses: {
            /** @description The extension */
            201: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        session_id: string;
                        id_document_years: number;
                        /** Format: date-time */
                        retain_until: string;
                        artifacts: number;
                        /** Format: date-time */
                        created_at: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listFlows: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tenant's flows, the default first */
            200: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "list";
                        data: components["schemas"]["Flow"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createFlow: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["FlowPatch"];
            };
        };
        responses: {
            /** @description The new flow */
            201: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Flow"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getFlow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A flow of the key's tenant (`flow_...`), or `default` for its default flow; another tenant's flow is a 404. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The flow */
            200: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Flow"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    updateFlow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A flow of the key's tenant (`flow_...`), or `default` for its default flow; another tenant's flow is a 404. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["FlowPatch"];
            };
        };
        responses: {
            /** @description The flow as changed */
            200: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Flow"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateWebhookRequest"];
            };
        };
        responses: {
            /** @description Registered; the answer alone carries the signing secret */
            201: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedWebhookEndpoint"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listWebhookEndpoints: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoints */
            200: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        object: "list";
                        data: components["schemas"]["WebhookEndpoint"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            200: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @constant */
                        object: "webhook_endpoint";
                        /** @constant */
                        deleted: true;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    replayWebhookEvents: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReplayRequest"];
            };
        };
        responses: {
            /** @description Queued */
            202: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        queued: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createBulkImport: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {"flow_id": "default", "tier": "T1", "reference_id": "cust-1001", "email": "ada@example.com"}
                 *     {"tiers": ["T2"], "reference": "cust-1002", "locale": "de-DE"}
                 */
                "application/x-ndjson": string;
                /**
                 * @example {
                 *       "records": [
                 *         {
                 *           "flow_id": "default",
                 *           "tier": "T1",
                 *           "reference_id": "cust-1001",
                 *           "email": "ada@example.com"
                 *         },
                 *         {
                 *           "tiers": [
                 *             "T2"
                 *           ],
                 *           "reference": "cust-1002",
                 *           "locale": "de-DE"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    records: components["schemas"]["BulkImportRecord"][];
                };
            };
        };
        responses: {
            /** @description Accepted; the job runs in the background */
            202: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "bimp_4Jt0vQ9cXr2LmP8sKz6wYb1N",
                     *       "object": "bulk_import",
                     *       "livemode": false,
                     *       "status": "queued",
                     *       "total": 2,
                     *       "created": 0,
                     *       "duplicates": 0,
                     *       "rejected": 0,
                     *       "created_at": "2026-11-26T18:00:00.000Z",
                     *       "completed_at": null
                     *     }
                     */
                    "application/json": components["schemas"]["BulkImport"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getBulkImport: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example bimp_4Jt0vQ9cXr2LmP8sKz6wYb1N */
                id: components["parameters"]["BulkImportId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The import */
            200: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "bimp_4Jt0vQ9cXr2LmP8sKz6wYb1N",
                     *       "object": "bulk_import",
                     *       "livemode": false,
                     *       "status": "completed",
                     *       "total": 2,
                     *       "created": 1,
                     *       "duplicates": 1,
                     *       "rejected": 0,
                     *       "created_at": "2026-11-26T18:00:00.000Z",
                     *       "completed_at": "2026-11-26T18:00:01.250Z"
                     *     }
                     */
                    "application/json": components["schemas"]["BulkImport"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getBulkImportResults: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example bimp_4Jt0vQ9cXr2LmP8sKz6wYb1N */
                id: components["parameters"]["BulkImportId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The results, one JSON object per line */
            200: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "line": 1,
                     *       "reference_id": "cust-1001",
                     *       "outcome": "created",
                     *       "session_id": "vses_8sKz6wYb1N4Jt0vQ9cXr2LmP",
                     *       "url": "https://verify.example.com/hosted/vses_8sKz6wYb1N4Jt0vQ9cXr2LmP?token=Yx3"
                     *     }
                     */
                    "application/x-ndjson": components["schemas"]["BulkImportResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    initiateDelegatedRequest: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The tenant's own subject for the user */
                    user_sub: string;
                    /** @enum {string} */
                    purpose: "access";
                    /** @constant */
                    delegated_by_tenant: true;
                    /** Format: uri */
                    callback_url: string;
                };
            };
        };
        responses: {
            /** @description Waiting for the user */
            202: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DsrJob"] & {
                        /** @constant */
                        purpose: "access";
                        /** Format: uri */
                        callback_url: string;
                        callback_signing_secret: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description The key lacks `dsr:manage` (`insufficient_scope`) */
            403: {
                headers: {
                    "request-id": components["headers"]["RequestId"];
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    openHostedPage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    token: string;
                };
            };
        };
        responses: {
            /** @description The credential and the page's view of the session */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description `hpc_...`; send as `Authorization: Bearer <credential>` */
                        credential: string;
                        /** Format: date-time */
                        expires_at: string;
                        session: components["schemas"]["HostedView"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getHostedView: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The view */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HostedView"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    startHostedSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The view */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HostedView"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    declineHostedConsent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The view */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HostedView"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    issueLivenessChallenge: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The challenge */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LivenessChallenge"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    uploadArtifact: {
        parameters: {
            query: {
                class: "id_document_image" | "selfie_image" | "selfie_video";
                /** @description Documents only */
                side?: "data_page" | "front" | "back";
                /** @description Liveness frames only, the challenge step index */
                step?: number;
                /** @description Liveness frames only, the step's nonce */
                nonce?: string;
                /** @description Liveness frames only, epoch ms (server clock) inside the step's window */
                captured_at?: number;
            };
            header?: never;
            path: {
                id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "image/jpeg": unknown;
                "image/png": unknown;
                "image/webp": unknown;
                "video/webm": unknown;
                "video/mp4": unknown;
            };
        };
        responses: {
            /** @description Stored */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StoredArtifact"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            /** @description `upload_too_slow`: the body arrived below 16 KiB/s on average after its first 10 s, or stopped; the connection is closed. */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            /**
             * @description `unsupported_media_type`: a type outside the list, bytes that are not the declared type, or a video whose
             *     track list cannot be read. `audio_not_allowed`: a video with an audio track.
             */
            415: {
                headers: {
                    "ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    submitHostedSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The view (a second submit returns it unchanged). The submit that wins also carries `keep_secret`, which "Keep this verification in your account" (POST /account/keep) needs within 30 minutes of completion, once. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HostedView"] & {
                        keep_secret?: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    chooseHostedTestOutcome: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    outcome: "approved" | "declined" | "review";
                };
            };
        };
        responses: {
            /** @description The view, with the chosen `test_outcome` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HostedView"] & {
                        keep_secret?: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    cancelHostedSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The view */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HostedView"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    putHostedBusinessDetails: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["HostedBusinessDetails"];
            };
        };
        responses: {
            /** @description The details as kept (normalised) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HostedBusinessDetails"];
                };
            };
            /** @description A field is not valid (each in `error.fields` with its own code), or the session's tier has no such step */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    putHostedIdentity: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    given_names?: string;
                    surname: string;
                    /** Format: date */
                    date_of_birth: string;
                };
            };
        };
        responses: {
            /** @description Kept */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        confirmed: boolean;
                    };
                };
            };
            /** @description A field is not valid (each in `error.fields` with its own code), or the session's tier has no such step */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postHostedAppHandoff: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The deep link and an SVG QR code of it */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        link: string;
                        qr_svg: string;
                        /** @description The first call only, as the submit that wins gives it (POST /account/keep needs it). */
                        keep_secret?: string;
                    };
                };
            };
            /** @description A field is not valid (each in `error.fields` with its own code), or the session's tier has no such step */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postHostedDigitalIdRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request, for both channels */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DigitalIdRequest"];
                };
            };
            /** @description The flow does not offer digital IDs, or the tier has no document step */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postHostedDigitalIdResponse: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["SessionId"];
                requestId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description The protocol of the request the wallet answered; `openid4vp-v1-signed` only when the request was signed (the service had a verifier key when it made the request)
                     * @enum {string}
                     */
                    protocol: "openid4vp-v1-unsigned" | "openid4vp-v1-signed" | "org-iso-mdoc";
                    /** @description OpenID4VP: an object with `vp_token`, which maps the credential query id to a one-element array of the presentation. `org-iso-mdoc` (ISO/IEC TS 18013-7 Annex C): `{ response }`, the base64url CBOR EncryptedResponse (the HPKE-sealed DeviceResponse) */
                    data: Record<string, never>;
                };
            };
        };
        responses: {
            /** @description How the answer fared (a refusal names the failed step) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DigitalIdStatus"];
                };
            };
            /** @description The body is not a Digital Credentials API answer */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            /** @description The request was already answered or has expired */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    getDigitalIdRequestObject: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                requestId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request object */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/oauth-authz-req+jwt": string;
                };
            };
            404: components["responses"]["NotFound"];
            /** @description The request was already answered or has expired */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    postDigitalIdResponse: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                requestId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": {
                    response: string;
                };
            };
        };
        responses: {
            /** @description How the answer fared (a refusal names the failed step) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DigitalIdStatus"];
                };
            };
            /** @description The response does not decrypt to an authorization response for this request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            404: components["responses"]["NotFound"];
            /** @description The request was already answered or has expired */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    hostedHandoffQr: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description SVG */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "image/svg+xml": unknown;
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    openEvidence: {
        parameters: {
            query: {
                expires: number;
                sig: string;
            };
            header?: never;
            path: {
                artifact_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The captured bytes, exactly as uploaded */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "image/jpeg": unknown;
                    "image/png": unknown;
                    "image/webp": unknown;
                    "video/webm": unknown;
                    "video/mp4": unknown;
                };
            };
            /** @description The link was altered or has expired (`link_invalid`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The session's user deleted their account (`not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            409: components["responses"]["UserRestricted"];
            /** @description The artifact was purged (`gone`) */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    health: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Healthy */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description The database cannot be reached */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
        };
    };
    readiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            /** @description Not ready; `not_ready` names each part that is not */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
        };
    };
    metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metrics */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Missing or wrong metrics token (`unauthorized`) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not served on this port (no METRICS_TOKEN, or METRICS_PORT is set) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    openapi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI 3.1 definition */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/yaml": string;
                };
            };
        };
    };
    oidcDiscovery: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Provider metadata; its endpoints are the paths tagged `oidc` in this document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uri */
                        issuer: string;
                        /** Format: uri */
                        authorization_endpoint: string;
                        /** Format: uri */
                        token_endpoint: string;
                        /** Format: uri */
                        jwks_uri: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    oidcJwks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A JWK set */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        keys: Record<string, never>[];
                    };
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    oidcAuthorize: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description To the sign-in interaction, or back to the client with `code` or `error` */
            303: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    oidcInteraction: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                uid: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    oidcPushedAuthorizationRequest: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": Record<string, never>;
            };
        };
        responses: {
            /** @description The `request_uri` to send to the authorization endpoint */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        request_uri: string;
                        expires_in: number;
                    };
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    oidcToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": Record<string, never>;
            };
        };
        responses: {
            /** @description Tokens */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenResponse"];
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    oauth2Token: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": Record<string, never>;
            };
        };
        responses: {
            /** @description Tokens */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenResponse"];
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    oidcUserinfo: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Claims of the granted scopes; `sub` is the tenant's pairwise subject */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        sub: string;
                        email?: string;
                        email_verified?: boolean;
                        display_name?: string | null;
                        handle?: string | null;
                        service_verification?: components["schemas"]["ServiceVerification"];
                    };
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    oidcRevoke: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": Record<string, never>;
            };
        };
        responses: {
            /** @description Revoked (or already unknown) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    oidcLogout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The confirmation page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    downloadExportBundle: {
        parameters: {
            query: {
                expires: string;
                sig: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The zip */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/zip": unknown;
                };
            };
            /** @description An altered or expired link (`link_invalid`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The user deleted their account; from that moment on, and after the purge (`not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The bundle was removed after 7 days (`gone`) */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    getSocial: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Any path below the prefix, with its query. The upstream gets it normalised (dot-segments resolved, escapes of unreserved characters decoded); a path that leaves the prefix, or holds an escaped slash or backslash, is refused with 400 (docs/gateway.md). */
                path: components["parameters"]["GatewayPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            400: components["responses"]["GatewayRequestRefused"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            502: components["responses"]["UpstreamUnreachable"];
            503: components["responses"]["UpstreamNotConfigured"];
            504: components["responses"]["UpstreamTimeout"];
            /** @description The upstream's answer, streamed as it comes and framed by the gateway: its status, its end-to-end headers but Set-Cookie and other origin-wide ones, then `x-content-type-options: nosniff` and `content-security-policy: sandbox`, and its body (docs/gateway.md) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    putSocial: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Any path below the prefix, with its query. The upstream gets it normalised (dot-segments resolved, escapes of unreserved characters decoded); a path that leaves the prefix, or holds an escaped slash or backslash, is refused with 400 (docs/gateway.md). */
                path: components["parameters"]["GatewayPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            400: components["responses"]["GatewayRequestRefused"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            502: components["responses"]["UpstreamUnreachable"];
            503: components["responses"]["UpstreamNotConfigured"];
            504: components["responses"]["UpstreamTimeout"];
            /** @description The upstream's answer, streamed as it comes and framed by the gateway: its status, its end-to-end headers but Set-Cookie and other origin-wide ones, then `x-content-type-options: nosniff` and `content-security-policy: sandbox`, and its body (docs/gateway.md) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    postSocial: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Any path below the prefix, with its query. The upstream gets it normalised (dot-segments resolved, escapes of unreserved characters decoded); a path that leaves the prefix, or holds an escaped slash or backslash, is refused with 400 (docs/gateway.md). */
                path: components["parameters"]["GatewayPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            400: components["responses"]["GatewayRequestRefused"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            502: components["responses"]["UpstreamUnreachable"];
            503: components["responses"]["UpstreamNotConfigured"];
            504: components["responses"]["UpstreamTimeout"];
            /** @description The upstream's answer, streamed as it comes and framed by the gateway: its status, its end-to-end headers but Set-Cookie and other origin-wide ones, then `x-content-type-options: nosniff` and `content-security-policy: sandbox`, and its body (docs/gateway.md) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deleteSocial: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Any path below the prefix, with its query. The upstream gets it normalised (dot-segments resolved, escapes of unreserved characters decoded); a path that leaves the prefix, or holds an escaped slash or backslash, is refused with 400 (docs/gateway.md). */
                path: components["parameters"]["GatewayPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            400: components["responses"]["GatewayRequestRefused"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            502: components["responses"]["UpstreamUnreachable"];
            503: components["responses"]["UpstreamNotConfigured"];
            504: components["responses"]["UpstreamTimeout"];
            /** @description The upstream's answer, streamed as it comes and framed by the gateway: its status, its end-to-end headers but Set-Cookie and other origin-wide ones, then `x-content-type-options: nosniff` and `content-security-policy: sandbox`, and its body (docs/gateway.md) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    patchSocial: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Any path below the prefix, with its query. The upstream gets it normalised (dot-segments resolved, escapes of unreserved characters decoded); a path that leaves the prefix, or holds an escaped slash or backslash, is refused with 400 (docs/gateway.md). */
                path: components["parameters"]["GatewayPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            400: components["responses"]["GatewayRequestRefused"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            502: components["responses"]["UpstreamUnreachable"];
            503: components["responses"]["UpstreamNotConfigured"];
            504: components["responses"]["UpstreamTimeout"];
            /** @description The upstream's answer, streamed as it comes and framed by the gateway: its status, its end-to-end headers but Set-Cookie and other origin-wide ones, then `x-content-type-options: nosniff` and `content-security-policy: sandbox`, and its body (docs/gateway.md) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    getProfiles: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Any path below the prefix, with its query. The upstream gets it normalised (dot-segments resolved, escapes of unreserved characters decoded); a path that leaves the prefix, or holds an escaped slash or backslash, is refused with 400 (docs/gateway.md). */
                path: components["parameters"]["GatewayPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            400: components["responses"]["GatewayRequestRefused"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            502: components["responses"]["UpstreamUnreachable"];
            503: components["responses"]["UpstreamNotConfigured"];
            504: components["responses"]["UpstreamTimeout"];
            /** @description The upstream's answer, streamed as it comes and framed by the gateway: its status, its end-to-end headers but Set-Cookie and other origin-wide ones, then `x-content-type-options: nosniff` and `content-security-policy: sandbox`, and its body (docs/gateway.md) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    putProfiles: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Any path below the prefix, with its query. The upstream gets it normalised (dot-segments resolved, escapes of unreserved characters decoded); a path that leaves the prefix, or holds an escaped slash or backslash, is refused with 400 (docs/gateway.md). */
                path: components["parameters"]["GatewayPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            400: components["responses"]["GatewayRequestRefused"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            502: components["responses"]["UpstreamUnreachable"];
            503: components["responses"]["UpstreamNotConfigured"];
            504: components["responses"]["UpstreamTimeout"];
            /** @description The upstream's answer, streamed as it comes and framed by the gateway: its status, its end-to-end headers but Set-Cookie and other origin-wide ones, then `x-content-type-options: nosniff` and `content-security-policy: sandbox`, and its body (docs/gateway.md) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    postProfiles: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Any path below the prefix, with its query. The upstream gets it normalised (dot-segments resolved, escapes of unreserved characters decoded); a path that leaves the prefix, or holds an escaped slash or backslash, is refused with 400 (docs/gateway.md). */
                path: components["parameters"]["GatewayPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            400: components["responses"]["GatewayRequestRefused"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            502: components["responses"]["UpstreamUnreachable"];
            503: components["responses"]["UpstreamNotConfigured"];
            504: components["responses"]["UpstreamTimeout"];
            /** @description The upstream's answer, streamed as it comes and framed by the gateway: its status, its end-to-end headers but Set-Cookie and other origin-wide ones, then `x-content-type-options: nosniff` and `content-security-policy: sandbox`, and its body (docs/gateway.md) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deleteProfiles: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Any path below the prefix, with its query. The upstream gets it normalised (dot-segments resolved, escapes of unreserved characters decoded); a path that leaves the prefix, or holds an escaped slash or backslash, is refused with 400 (docs/gateway.md). */
                path: components["parameters"]["GatewayPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            400: components["responses"]["GatewayRequestRefused"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            502: components["responses"]["UpstreamUnreachable"];
            503: components["responses"]["UpstreamNotConfigured"];
            504: components["responses"]["UpstreamTimeout"];
            /** @description The upstream's answer, streamed as it comes and framed by the gateway: its status, its end-to-end headers but Set-Cookie and other origin-wide ones, then `x-content-type-options: nosniff` and `content-security-policy: sandbox`, and its body (docs/gateway.md) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    patchProfiles: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Any path below the prefix, with its query. The upstream gets it normalised (dot-segments resolved, escapes of unreserved characters decoded); a path that leaves the prefix, or holds an escaped slash or backslash, is refused with 400 (docs/gateway.md). */
                path: components["parameters"]["GatewayPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            400: components["responses"]["GatewayRequestRefused"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            502: components["responses"]["UpstreamUnreachable"];
            503: components["responses"]["UpstreamNotConfigured"];
            504: components["responses"]["UpstreamTimeout"];
            /** @description The upstream's answer, streamed as it comes and framed by the gateway: its status, its end-to-end headers but Set-Cookie and other origin-wide ones, then `x-content-type-options: nosniff` and `content-security-policy: sandbox`, and its body (docs/gateway.md) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    getNetwork: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Any path below the prefix, with its query. The upstream gets it normalised (dot-segments resolved, escapes of unreserved characters decoded); a path that leaves the prefix, or holds an escaped slash or backslash, is refused with 400 (docs/gateway.md). */
                path: components["parameters"]["GatewayPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            400: components["responses"]["GatewayRequestRefused"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            502: components["responses"]["UpstreamUnreachable"];
            503: components["responses"]["UpstreamNotConfigured"];
            504: components["responses"]["UpstreamTimeout"];
            /** @description The upstream's answer, streamed as it comes and framed by the gateway: its status, its end-to-end headers but Set-Cookie and other origin-wide ones, then `x-content-type-options: nosniff` and `content-security-policy: sandbox`, and its body (docs/gateway.md) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    putNetwork: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Any path below the prefix, with its query. The upstream gets it normalised (dot-segments resolved, escapes of unreserved characters decoded); a path that leaves the prefix, or holds an escaped slash or backslash, is refused with 400 (docs/gateway.md). */
                path: components["parameters"]["GatewayPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            400: components["responses"]["GatewayRequestRefused"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            502: components["responses"]["UpstreamUnreachable"];
            503: components["responses"]["UpstreamNotConfigured"];
            504: components["responses"]["UpstreamTimeout"];
            /** @description The upstream's answer, streamed as it comes and framed by the gateway: its status, its end-to-end headers but Set-Cookie and other origin-wide ones, then `x-content-type-options: nosniff` and `content-security-policy: sandbox`, and its body (docs/gateway.md) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    postNetwork: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Any path below the prefix, with its query. The upstream gets it normalised (dot-segments resolved, escapes of unreserved characters decoded); a path that leaves the prefix, or holds an escaped slash or backslash, is refused with 400 (docs/gateway.md). */
                path: components["parameters"]["GatewayPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            400: components["responses"]["GatewayRequestRefused"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            502: components["responses"]["UpstreamUnreachable"];
            503: components["responses"]["UpstreamNotConfigured"];
            504: components["responses"]["UpstreamTimeout"];
            /** @description The upstream's answer, streamed as it comes and framed by the gateway: its status, its end-to-end headers but Set-Cookie and other origin-wide ones, then `x-content-type-options: nosniff` and `content-security-policy: sandbox`, and its body (docs/gateway.md) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deleteNetwork: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Any path below the prefix, with its query. The upstream gets it normalised (dot-segments resolved, escapes of unreserved characters decoded); a path that leaves the prefix, or holds an escaped slash or backslash, is refused with 400 (docs/gateway.md). */
                path: components["parameters"]["GatewayPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            400: components["responses"]["GatewayRequestRefused"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            502: components["responses"]["UpstreamUnreachable"];
            503: components["responses"]["UpstreamNotConfigured"];
            504: components["responses"]["UpstreamTimeout"];
            /** @description The upstream's answer, streamed as it comes and framed by the gateway: its status, its end-to-end headers but Set-Cookie and other origin-wide ones, then `x-content-type-options: nosniff` and `content-security-policy: sandbox`, and its body (docs/gateway.md) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    patchNetwork: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Any path below the prefix, with its query. The upstream gets it normalised (dot-segments resolved, escapes of unreserved characters decoded); a path that leaves the prefix, or holds an escaped slash or backslash, is refused with 400 (docs/gateway.md). */
                path: components["parameters"]["GatewayPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            400: components["responses"]["GatewayRequestRefused"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            502: components["responses"]["UpstreamUnreachable"];
            503: components["responses"]["UpstreamNotConfigured"];
            504: components["responses"]["UpstreamTimeout"];
            /** @description The upstream's answer, streamed as it comes and framed by the gateway: its status, its end-to-end headers but Set-Cookie and other origin-wide ones, then `x-content-type-options: nosniff` and `content-security-policy: sandbox`, and its body (docs/gateway.md) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    gatewaySigningKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A JWK set */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        keys: Record<string, never>[];
                    };
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    exportSigningKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A JWK set */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        keys: Record<string, never>[];
                    };
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    receiveVerificationEvent: {
        parameters: {
            query?: never;
            header: {
                "Service-Signature": string;
                "Service-Event-Id": string;
                "Service-Webhook-Attempt": number;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookEvent"];
            };
        };
        responses: {
            /** @description Any 2xx acknowledges the delivery */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
