import type { NextFunction, Request, Response } from 'express';

/** An async page handler whose unexpected errors reach express's error handler. */
export const wrap =
  (fn: (req: Request, res: Response) => Promise<void>) =>
  (req: Request, res: Response, next: NextFunction): void =>
    void fn(req, res).catch(next);
