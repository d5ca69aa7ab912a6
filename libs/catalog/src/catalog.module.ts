import { Module } from '@nestjs/common';
import { CreateProductHandler } from './application/create-product.js';
import { DeleteProductHandler } from './application/delete-product.js';
import { GetProductHandler } from './application/get-product.js';
import { ListProductsHandler } from './application/list-products.js';
import { UpdateProductHandler } from './application/update-product.js';
import { ProductsController } from './http/products.controller.js';

/** Catalog: products and prices. */
@Module({
  controllers: [ProductsController],
  providers: [CreateProductHandler, UpdateProductHandler, DeleteProductHandler, GetProductHandler, ListProductsHandler],
})
export class CatalogModule {}
